#!/usr/bin/env python3
"""Rewrites a share of a crawl's files, as a crawler's next visit would.

usage: change-crawl.py DIR SHARE

DIR is a hard-linked copy of a crawl (cp -al): every k-th page file in
path order (k = 1/SHARE) is unlinked and written anew with a paragraph
appended, so that the original crawl keeps its bytes.
"""
import os
import sys

root, share = sys.argv[1], float(sys.argv[2])
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
               if f.endswith((".html", ".htm", ".txt", ".md")) and not f.startswith(".")
               and not os.path.islink(os.path.join(d, f)))
step = max(1, round(1 / share))
for i in range(0, len(files), step):
    p = files[i]
    with open(p, "rb") as f:
        data = f.read()
    os.unlink(p)
    with open(p, "wb") as f:
        f.write(data + b"\n<p>updated paragraph zyzzyva %d</p>\n" % i)
