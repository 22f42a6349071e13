#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render Documentation/twheel.rst (or verify.rst) with plain docutils.

The document uses the kernel's ``.. kernel-doc::`` directive so that it reads
like in-tree documentation. Sphinx's kernel-doc extension is not available
outside the kernel tree, so each directive is replaced by the reST that
scripts/kernel-doc produces for it (any kernel-doc warning fails), and the
result is rendered with docutils at warning level (any warning fails).
"""
import os
import re
import subprocess
import sys

import docutils.core


def expand(text, top, kerneldoc, src):
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        inc = re.match(r'^\.\. include:: (\S+)(.*)$', lines[i])
        if inc:
            path = os.path.join(os.path.dirname(os.path.abspath(src)),
                                inc.group(1))
            out.append('.. include:: %s%s' % (path, inc.group(2)))
            i += 1
            continue
        m = re.match(r'^\.\. kernel-doc:: (\S+)\s*$', lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        opts = []
        i += 1
        while i < len(lines) and re.match(r'^\s+:(\w+):', lines[i]):
            opts.append(lines[i].strip().strip(':').split(':')[0])
            i += 1
        path = os.path.join(top, m.group(1))
        cmd = ['perl', kerneldoc, '-rst', '-Wall', '-sphinx-version', '3.4.3']
        if 'export' in opts:
            cmd.append('-export')
        cmd.append(path)
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode or res.stderr.strip():
            sys.exit('kernel-doc %s:\n%s' % (m.group(1), res.stderr))
        # Sphinx C-domain directives are unknown to docutils: keep their text.
        body = re.sub(r'^\.\. c:(function|struct|enum|macro|type|union|var)::\s*(.*)$',
                      r'**\2**\n', res.stdout, flags=re.M)
        out.append(body)
    return '\n'.join(out) + '\n'


def main():
    top, kerneldoc, src, dst = sys.argv[1:5]
    with open(src, encoding='utf-8') as f:
        text = expand(f.read(), top, kerneldoc, src)
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    expanded = dst + '.rst'
    with open(expanded, 'w', encoding='utf-8') as f:
        f.write(text)
    docutils.core.publish_file(
        source_path=expanded, destination_path=dst, writer_name='html',
        settings_overrides={'halt_level': 2, 'report_level': 2,
                            'input_encoding': 'utf-8',
                            '_disable_config': True})
    print('rendered %s' % dst)


if __name__ == '__main__':
    main()
