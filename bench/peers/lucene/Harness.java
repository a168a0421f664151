// Harness is the Lucene 8 side of bench/peers: it indexes a corpus file and
// answers a queries file with Lucene's BM25, single-threaded, timing only
// what it is asked to time. The Go driver (package lucene beside this file)
// compiles it with the machine's javac against Debian's liblucene8-java jars
// and runs it in two steps:
//
//   java Harness [--analyzer porter2|english|standard] [--positions]
//       [--store none|titles|text] index CORPUS INDEXDIR [TITLES]
//     CORPUS: one document a line, "name<TAB>text"; the line number (from 0)
//     is the document's id in every engine. TITLES (wanted with --store
//     titles or text): each document's title, one a line. Prints
//     {"version":"8.7.0","analyzer":"porter2","docs":N,"index_ns":T}, where T
//     covers reading, analysis, inversion, forceMerge(1) and commit.
//
//   java Harness [--analyzer ...] search INDEXDIR QUERIES OUTDIR WARMUP REPEAT KEEP MODE:K...
//     QUERIES: one query text a line. For each MODE:K (mode "and", "or" or
//     "phrase"),
//     answers every query WARMUP times untimed, then REPEAT times timed, and
//     writes OUTDIR/MODE-K.hits, one line a query: "id score id score ..."
//     for the first KEEP hits. Prints
//     {"runs":[{"mode":..,"k":..,"wall_ns":[..],"cpu_ns":[..]}]}, REPEAT
//     times as many values as queries, pass by pass.
//
// A query's time covers analysing its text, building the query (and, or: a
// BooleanQuery of one TermQuery a distinct term, MUST for and, SHOULD for or;
// phrase: one PhraseQuery of the analysed terms at their positions, which
// needs an index built with --positions) and IndexSearcher.search(query, k);
// reading the hits back is not timed. wall_ns
// is System.nanoTime's; cpu_ns is the CPU time of the searching thread
// (ThreadMXBean), which a busy machine inflates far less.
//
// Analyzers: "porter2" (the default) mirrors gpusearch's analysis: Lucene's
// StandardTokenizer (UAX #29 words, as blevesearch/segment), LowerCaseFilter,
// and the Snowball English stemmer (Porter2), no stop words. "english" is
// Lucene's EnglishAnalyzer (possessives, 33 stop words, Porter1);
// "standard" is StandardAnalyzer (lowercased words, no stemming, no stop
// words in Lucene 8).
//
// The body field is indexed with documents and frequencies, and with
// positions under --positions (as gpusearch's index.positions); the name is
// always a stored field, as gpusearch stores each document's name, and
// --store titles or text also stores the title, and text the body (as
// gpusearch's index.store). A LogByteSizeMergePolicy
// (adjacent segments only) and forceMerge(1) keep Lucene's docids in corpus
// order, which index checks document by document.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogByteSizeMergePolicy;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;
import org.tartarus.snowball.ext.EnglishStemmer;

public final class Harness {
    private static final String BODY = "body";
    private static final String NAME = "name";
    private static final String TITLE = "title";
    private static final float K1 = 0.9f;
    private static final float B = 0.4f;

    private Harness() {}

    public static void main(String[] args) throws IOException {
        String analyzerName = "porter2";
        boolean positions = false;
        String store = "none";
        int i = 0;
        for (; i < args.length && args[i].startsWith("--"); i++) {
            if (args[i].equals("--positions")) {
                positions = true;
            } else if (args[i].equals("--analyzer") && i + 1 < args.length) {
                analyzerName = args[++i];
            } else if (args[i].equals("--store") && i + 1 < args.length
                    && (args[i + 1].equals("none") || args[i + 1].equals("titles") || args[i + 1].equals("text"))) {
                store = args[++i];
            } else {
                usage();
            }
        }
        if (args.length <= i) {
            usage();
        }
        Analyzer analyzer = analyzer(analyzerName);
        String cmd = args[i];
        List<String> rest = new ArrayList<>();
        for (int j = i + 1; j < args.length; j++) {
            rest.add(args[j]);
        }
        if (cmd.equals("index") && rest.size() == (store.equals("none") ? 2 : 3)) {
            Path titles = rest.size() == 3 ? Paths.get(rest.get(2)) : null;
            index(analyzer, analyzerName, positions, store, Paths.get(rest.get(0)), Paths.get(rest.get(1)), titles);
        } else if (cmd.equals("search") && rest.size() >= 7) {
            search(analyzer, rest);
        } else {
            usage();
        }
    }

    private static void usage() {
        System.err.println("usage: Harness [--analyzer porter2|english|standard] [--positions] [--store none|titles|text]"
                + " index CORPUS INDEXDIR [TITLES]");
        System.err.println("       Harness [--analyzer ...] search INDEXDIR QUERIES OUTDIR WARMUP REPEAT KEEP MODE:K...");
        System.exit(2);
    }

    private static Analyzer analyzer(String name) {
        switch (name) {
            case "porter2":
                return new Analyzer() {
                    @Override
                    protected TokenStreamComponents createComponents(String field) {
                        StandardTokenizer src = new StandardTokenizer();
                        TokenStream ts = new LowerCaseFilter(src);
                        ts = new SnowballFilter(ts, new EnglishStemmer());
                        return new TokenStreamComponents(src, ts);
                    }
                };
            case "english":
                return new EnglishAnalyzer();
            case "standard":
                return new StandardAnalyzer();
            default:
                System.err.println("Harness: unknown analyzer " + name + " (want porter2, english or standard)");
                System.exit(2);
                return null;
        }
    }

    private static void index(Analyzer analyzer, String analyzerName, boolean positions, String store,
            Path corpus, Path dir, Path titlesFile) throws IOException {
        FieldType body = new FieldType();
        body.setIndexOptions(positions ? IndexOptions.DOCS_AND_FREQS_AND_POSITIONS : IndexOptions.DOCS_AND_FREQS);
        body.setTokenized(true);
        body.setStored(store.equals("text"));
        body.freeze();

        long start = System.nanoTime();
        IndexWriterConfig cfg = new IndexWriterConfig(analyzer);
        cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        cfg.setSimilarity(new BM25Similarity(K1, B));
        cfg.setRAMBufferSizeMB(256);
        cfg.setMergePolicy(new LogByteSizeMergePolicy());
        cfg.setMergeScheduler(new SerialMergeScheduler());
        List<String> names = new ArrayList<>();
        BufferedReader titles = titlesFile == null ? null : Files.newBufferedReader(titlesFile, StandardCharsets.UTF_8);
        try (FSDirectory fs = FSDirectory.open(dir);
             IndexWriter w = new IndexWriter(fs, cfg);
             BufferedReader r = Files.newBufferedReader(corpus, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                int tab = line.indexOf('\t');
                if (tab < 0) {
                    throw new IOException(corpus + ": line " + (names.size() + 1) + " has no tab");
                }
                String name = line.substring(0, tab);
                Document d = new Document();
                d.add(new StoredField(NAME, name));
                if (titles != null) {
                    String title = titles.readLine();
                    if (title == null) {
                        throw new IOException(titlesFile + ": fewer titles than documents");
                    }
                    d.add(new StoredField(TITLE, title));
                }
                d.add(new Field(BODY, line.substring(tab + 1), body));
                w.addDocument(d);
                names.add(name);
            }
            w.forceMerge(1);
            w.commit();
        } finally {
            if (titles != null) {
                titles.close();
            }
        }
        long took = System.nanoTime() - start;

        try (FSDirectory fs = FSDirectory.open(dir); DirectoryReader rd = DirectoryReader.open(fs)) {
            if (rd.maxDoc() != names.size() || rd.leaves().size() > 1) {
                throw new IOException("index holds " + rd.maxDoc() + " docs in " + rd.leaves().size()
                        + " segments, want " + names.size() + " in one");
            }
            Set<String> fields = Collections.singleton(NAME);
            for (int id = 0; id < names.size(); id++) {
                String got = rd.document(id, fields).get(NAME);
                if (!names.get(id).equals(got)) {
                    throw new IOException("docid " + id + " is " + got + ", want " + names.get(id));
                }
            }
        }
        System.out.println("{\"version\":\"" + Version.LATEST + "\",\"analyzer\":\"" + analyzerName
                + "\",\"docs\":" + names.size() + ",\"index_ns\":" + took + "}");
    }

    private static void search(Analyzer analyzer, List<String> a) throws IOException {
        Path dir = Paths.get(a.get(0));
        List<String> queries = Files.readAllLines(Paths.get(a.get(1)), StandardCharsets.UTF_8);
        Path out = Paths.get(a.get(2));
        int warmup = Integer.parseInt(a.get(3));
        int repeat = Integer.parseInt(a.get(4));
        int keep = Integer.parseInt(a.get(5));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        StringBuilder json = new StringBuilder("{\"runs\":[");
        try (FSDirectory fs = FSDirectory.open(dir); DirectoryReader rd = DirectoryReader.open(fs)) {
            IndexSearcher s = new IndexSearcher(rd);
            s.setSimilarity(new BM25Similarity(K1, B));
            s.setQueryCache(null);
            for (int r = 6; r < a.size(); r++) {
                String[] mk = a.get(r).split(":");
                if (mk.length != 2 || !(mk[0].equals("and") || mk[0].equals("or") || mk[0].equals("phrase"))) {
                    throw new IllegalArgumentException("run " + a.get(r) + ": want and:K, or:K or phrase:K");
                }
                String mode = mk[0];
                int k = Integer.parseInt(mk[1]);
                for (int w = 0; w < warmup; w++) {
                    for (String q : queries) {
                        answer(s, analyzer, q, mode, k);
                    }
                }
                int n = queries.size();
                long[] wall = new long[repeat * n];
                long[] cpuNS = new long[repeat * n];
                TopDocs[] hits = new TopDocs[n];
                for (int p = 0; p < repeat; p++) {
                    for (int qi = 0; qi < n; qi++) {
                        long c0 = cpu.getCurrentThreadCpuTime();
                        long t0 = System.nanoTime();
                        hits[qi] = answer(s, analyzer, queries.get(qi), mode, k);
                        wall[p * n + qi] = System.nanoTime() - t0;
                        cpuNS[p * n + qi] = cpu.getCurrentThreadCpuTime() - c0;
                    }
                }
                writeHits(out.resolve(mk[0] + "-" + k + ".hits"), hits, keep);
                if (r > 6) {
                    json.append(',');
                }
                json.append("{\"mode\":\"").append(mk[0]).append("\",\"k\":").append(k);
                appendArray(json.append(",\"wall_ns\":"), wall);
                appendArray(json.append(",\"cpu_ns\":"), cpuNS);
                json.append('}');
            }
        }
        json.append("]}");
        System.out.println(json);
    }

    private static void appendArray(StringBuilder b, long[] v) {
        b.append('[');
        for (int i = 0; i < v.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(v[i]);
        }
        b.append(']');
    }

    // answer runs one query; an empty analysis gives no hits.
    private static TopDocs answer(IndexSearcher s, Analyzer analyzer, String text, String mode, int k)
            throws IOException {
        if (mode.equals("phrase")) {
            return phrase(s, analyzer, text, k);
        }
        LinkedHashSet<String> terms = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream(BODY, text)) {
            CharTermAttribute att = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                terms.add(att.toString());
            }
            ts.end();
        }
        if (terms.isEmpty()) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        BooleanClause.Occur occur = mode.equals("and") ? BooleanClause.Occur.MUST : BooleanClause.Occur.SHOULD;
        for (String t : terms) {
            b.add(new TermQuery(new Term(BODY, t)), occur);
        }
        Query q = b.build();
        return s.search(q, k);
    }

    // phrase answers text as one phrase: its analysed terms, each at the
    // position the analyzer gives it (every word one position further, as
    // no analyzer here drops words).
    private static TopDocs phrase(IndexSearcher s, Analyzer analyzer, String text, int k) throws IOException {
        PhraseQuery.Builder b = new PhraseQuery.Builder();
        int n = 0;
        try (TokenStream ts = analyzer.tokenStream(BODY, text)) {
            CharTermAttribute att = ts.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
            ts.reset();
            int pos = -1;
            while (ts.incrementToken()) {
                pos += inc.getPositionIncrement();
                b.add(new Term(BODY, att.toString()), pos);
                n++;
            }
            ts.end();
        }
        if (n == 0) {
            return null;
        }
        return s.search(b.build(), k);
    }

    private static void writeHits(Path file, TopDocs[] hits, int keep) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            StringBuilder line = new StringBuilder();
            for (TopDocs td : hits) {
                line.setLength(0);
                if (td != null) {
                    ScoreDoc[] sd = td.scoreDocs;
                    for (int i = 0; i < sd.length && i < keep; i++) {
                        if (i > 0) {
                            line.append(' ');
                        }
                        line.append(sd[i].doc).append(' ').append(sd[i].score);
                    }
                }
                w.write(line.toString());
                w.newLine();
            }
        }
    }
}
