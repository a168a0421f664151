"""Xapian 1.4 side of bench/peers, run by Debian's /usr/bin/python3.

The Go driver (package xapian beside this file) runs it in two steps:

  harness.py index CORPUS INDEXDIR
    CORPUS: one document a line, "name<TAB>text"; the line number (from 0)
    is the document's id in every engine (Xapian docid = line + 1). Prints
    {"version":"1.4.22","docs":N,"index_ns":T}, where T covers reading,
    analysis, indexing, commit and compaction.

  harness.py search INDEXDIR QUERIES OUTDIR WARMUP REPEAT KEEP MODE:K...
    QUERIES: one query text a line. For each MODE:K (mode "and" or "or"),
    answers every query WARMUP times untimed, then REPEAT times timed, and
    writes OUTDIR/MODE-K.hits, one line a query: "id score id score ..." for
    the first KEEP hits. Prints
    {"runs":[{"mode":..,"k":..,"wall_ns":[..],"cpu_ns":[..]}]}, REPEAT times
    as many values as queries, pass by pass.

Analysis: Xapian's TermGenerator (its own word splitter, lowercasing) with
the Snowball "english" stemmer (Porter2) and STEM_ALL (every term stemmed,
no unstemmed Z-less copies), no stop words, no positions: the closest Xapian
gets to gpusearch's analysis. The database is glass, built with
DB_NO_TERMLIST (no per-document term lists, which gpusearch does not keep
either and which only relevance feedback and document term iteration need)
and compacted once built. Queries are analysed by the same
TermGenerator, so query and document terms match exactly; the terms become
an OP_AND or OP_OR query (QueryParser is not used: it would read "and",
"not", quotes and hyphens as syntax).

Weighting: BM25Weight(k1=0.9, k2=0, k3=1, b=0.4, min_normlen=0). k2=0
drops the document-length correction term and k3 only matters for repeated
query terms, which are merged here as in gpusearch. min_normlen=0 (default
0.5) stops Xapian from treating documents shorter than half the average as
half-average length, which gpusearch's BM25 does not do. The idf stays
Xapian's: ln((N-df+0.5)/(df+0.5)), replaced by ln(x/2+1) when x < 2.

A query's time covers analysing its text, building the query and
Enquire.get_mset(0, k); reading the hits back is not timed. wall_ns is
time.perf_counter_ns's; cpu_ns is the thread's CPU time (time.thread_time_ns),
which a busy machine inflates far less.
"""

import json
import os
import shutil
import sys
import time

import xapian

K1, K2, K3, B, MIN_NORMLEN = 0.9, 0.0, 1.0, 0.4, 0.0


def term_generator():
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("english"))
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
    return tg


def index(corpus, path):
    start = time.perf_counter_ns()
    tmp = path + ".build"
    tg = term_generator()
    names = []
    db = xapian.WritableDatabase(tmp, xapian.DB_CREATE_OR_OVERWRITE | xapian.DB_NO_TERMLIST)
    with open(corpus, encoding="utf-8", newline="\n") as f:
        for n, line in enumerate(f, 1):
            name, tab, text = line.rstrip("\n").partition("\t")
            if not tab:
                raise SystemExit("%s: line %d has no tab" % (corpus, n))
            doc = xapian.Document()
            tg.set_document(doc)
            tg.index_text_without_positions(text)
            doc.set_data(name)
            db.add_document(doc)
            names.append(name)
    db.commit()
    db.close()
    xapian.Database(tmp).compact(path, xapian.DBCOMPACT_NO_RENUMBER)
    shutil.rmtree(tmp)
    took = time.perf_counter_ns() - start

    db = xapian.Database(path)
    if db.get_doccount() != len(names):
        raise SystemExit("index holds %d docs, want %d" % (db.get_doccount(), len(names)))
    for i, name in enumerate(names):
        got = db.get_document(i + 1).get_data().decode("utf-8")
        if got != name:
            raise SystemExit("docid %d is %s, want %s" % (i + 1, got, name))
    print(json.dumps({"version": xapian.version_string(), "docs": len(names), "index_ns": took}))


def answer(enquire, tg, text, op, k):
    doc = xapian.Document()
    tg.set_document(doc)
    tg.index_text_without_positions(text)
    terms = [t.term for t in doc.termlist()]
    if not terms:
        return None
    enquire.set_query(xapian.Query(op, terms))
    return enquire.get_mset(0, k)


def search(path, queries_file, outdir, warmup, repeat, keep, runs):
    with open(queries_file, encoding="utf-8", newline="\n") as f:
        queries = [line.rstrip("\n") for line in f]
    db = xapian.Database(path)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(K1, K2, K3, B, MIN_NORMLEN))
    enquire.set_docid_order(xapian.Enquire.ASCENDING)
    tg = term_generator()
    out = []
    wall, cpu = time.perf_counter_ns, time.thread_time_ns
    for spec in runs:
        mode, _, k = spec.partition(":")
        if mode not in ("and", "or") or not k.isdigit():
            raise SystemExit("run %s: want and:K or or:K" % spec)
        k = int(k)
        op = xapian.Query.OP_AND if mode == "and" else xapian.Query.OP_OR
        for _ in range(warmup):
            for q in queries:
                answer(enquire, tg, q, op, k)
        wall_ns, cpu_ns, msets = [], [], []
        for _ in range(repeat):
            msets = []
            for q in queries:
                c0 = cpu()
                t0 = wall()
                m = answer(enquire, tg, q, op, k)
                wall_ns.append(wall() - t0)
                cpu_ns.append(cpu() - c0)
                msets.append(m)
        with open(os.path.join(outdir, "%s-%d.hits" % (mode, k)), "w", encoding="utf-8") as w:
            for m in msets:
                parts = []
                if m is not None:
                    for i, hit in enumerate(m):
                        if i >= keep:
                            break
                        parts.append("%d %r" % (hit.docid - 1, hit.weight))
                w.write(" ".join(parts) + "\n")
        out.append({"mode": mode, "k": k, "wall_ns": wall_ns, "cpu_ns": cpu_ns})
    print(json.dumps({"runs": out}))


def main(argv):
    if len(argv) == 3 and argv[0] == "index":
        index(argv[1], argv[2])
    elif len(argv) >= 8 and argv[0] == "search":
        search(argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]), argv[7:])
    else:
        sys.stderr.write("usage: harness.py index CORPUS INDEXDIR\n"
                         "       harness.py search INDEXDIR QUERIES OUTDIR WARMUP REPEAT KEEP MODE:K...\n")
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
