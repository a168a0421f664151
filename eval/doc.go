// Package eval reads and writes TREC relevance judgments (qrels), TREC
// runs and queries files, and scores a run against qrels with the usual
// ranked-retrieval measures, defined as trec_eval 9 defines them.
//
// # Formats
//
// Qrels: one judgment a line, "qid iter docno rel", fields separated by
// white space; iter is ignored (it is written as 0), rel is an integer
// relevance level. A (qid, docno) pair judged twice is an error.
//
// Runs: one result a line, "qid Q0 docno rank score tag", fields separated
// by white space (written with one space). The second field and the tag are
// ignored on reading, as trec_eval ignores them; a docno that appears twice
// for one query is an error, as in trec_eval. Scores are written in the
// shortest decimal form that reads back to the same value, so a run
// round-trips exactly. WriteRun writes one query's engine hits: ranks run
// from 1, the docno of each hit comes from a caller's function (usually
// DocNo of the document's URL), and a hit whose docno was already written
// for the query is left out (two files of one name in different folders of
// a crawl share a docno; the higher ranked one is kept).
//
// Queries files: one query a line, "qid<TAB>text", or only "text", whose
// qid is then its 1-based line number. Blank lines are skipped.
//
// DocNo maps a document URL or path to its docno: the last path element
// with its extension removed ("crawl/1400.txt" -> "1400",
// "http://host/a/b.html" -> "b"), with white space, other unprintable
// characters, invalid UTF-8 and '%' percent-encoded ("my page.html" ->
// "my%20page"). A docno cannot hold white space; escaping, rather than
// refusing the query or dropping the hit, keeps every document at its
// rank (unjudged, as a qrels file cannot name it either) and the run
// whole. WriteRun still refuses a docno with white space from any other
// docno function.
//
// # Measures
//
// A document is relevant to a query when its relevance level in the qrels
// is greater than zero. A retrieved document that the qrels do not judge
// for the query counts as not relevant (gain 0); so does a negative level.
// Let R be the number of relevant documents of the query.
//
// The run's results for a query are first put in trec_eval's order: score
// descending, ties broken by docno in descending byte order; the rank
// column is ignored. With Options.Depth > 0 only the first Depth results
// are kept (trec_eval -M). Then, with rel(i) the level of the document at
// rank i (1-based) and n the number of results:
//
//	map        average precision: (1/R) * sum over relevant documents at
//	           rank i of (relevant documents in ranks 1..i)/i; relevant
//	           documents never retrieved add 0 (trec_eval "map")
//	mrr        1/i for the first rank i holding a relevant document, 0 if
//	           none does (trec_eval "recip_rank"; over the whole run, so
//	           MRR@10 is Depth 10)
//	p10        (relevant documents in ranks 1..10)/10, even when n < 10
//	           (trec_eval "P_10")
//	ndcg10     DCG@10 / IDCG@10 with DCG@10 = sum over i <= 10 of
//	           max(rel(i), 0)/log2(i+1): the gain is the relevance level
//	           itself; IDCG@10 is the same sum over the query's judged
//	           documents sorted by level descending (every judged document
//	           with a level > 0, retrieved or not); 0 when IDCG is 0
//	           (trec_eval "ndcg_cut_10")
//	recall100  (relevant documents in ranks 1..100)/R (trec_eval
//	           "recall_100")
//
// # Which queries count
//
// The overall figure of each measure is the arithmetic mean over the
// queries of the qrels that have at least one relevant document. Such a
// query with no result in the run scores 0 on every measure (trec_eval -c)
// and is counted in Summary.Missing. Queries of the run that have no
// relevant document in the qrels (not judged at all, or judged with no
// relevant document) are left out of every mean and counted in
// Summary.Ignored: every measure above is undefined or trivially 0 for
// them. This differs from trec_eval's defaults in two ways, on purpose:
// trec_eval averages only the queries present in both files (so a query
// that an AND run answered with nothing would silently drop out), and it
// includes judged queries without relevant documents (scoring 0).
package eval
