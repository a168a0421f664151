// Package collection converts classic IR test collections into what
// gpusearch and package eval read: a crawl directory with one text file a
// document, a queries file and TREC qrels.
//
// # Output (Collection.Write)
//
//	DIR/crawl/<docno>.txt  one file a document, so eval.DocNo of its path
//	                       is the docno the qrels use
//	DIR/queries.txt        "qid<TAB>text", white space inside a query
//	                       (newlines included) joined into single spaces,
//	                       double quotes dropped (topics are prose, not
//	                       phrase syntax)
//	DIR/qrels.txt          TREC qrels "qid 0 docno rel"
//
// Write refuses a DIR whose crawl folder already holds files, so two
// collections never mix. WriteHTML (convert-collection --html) writes
// DIR/crawl/<docno>.html instead: the document's title, where its source
// names one (cranfield, cacm: .T, white space collapsed; rfc: the title
// its query is made of, for every RFC), in
// <title>, and its text in <pre>, both HTML-escaped, so that an indexer
// sees the title as a page's title (index.title_weight) and the text as
// before, with the title once more in front of it.
//
// # Formats
//
// cranfield (cran.all.1400, cran.qry, cranqrel; SMART format): a document
// is its title .T and abstract .W, nothing else (.A authors and .B
// bibliography are left out); its docno is its .I number. Queries are the
// .W text of cran.qry; their .I numbers (001, 002, 004, ... 365) are not
// the ids the qrels use: the qrels number the queries 1..225 in file
// order, and so does the converter. cranqrel holds "qid docno code" with
// Cleverdon's relevance codes, 1 (a complete answer) to 4 (minimum
// interest) and 5 (no interest); the converter writes graded gains, the
// higher the better, as nDCG wants them: 1 -> 4, 2 -> 3, 3 -> 2, 4 -> 1,
// 5 -> 0. Each query also has one line with code -1, which cranqrel.readme
// does not define; it marks a document that reads like the paper the
// question was drawn from (query 1's is document 486, "similarity laws for
// aerothermoelastic testing"). Its meaning is not documented, so it is
// written as 0 (judged, not relevant), like code 5. Any other code is an
// error.
//
// cacm (cacm.all, query.text, qrels.text; SMART format): a document is its
// title .T and abstract .W (about half the records have no abstract);
// .B, .A, .N, .X, .K and .C are left out; its docno is its .I number.
// Queries are the .W text of query.text with their .I numbers as ids; a
// record without .W (the file ends with an empty ".I 0") is skipped, which
// leaves 64 queries. qrels.text holds "qid docno 0 0" lines with zero-padded
// query ids ("01"): every listed pair is relevant (gain 1), ids are written
// without the padding. 52 of the 64 queries have judgments.
//
// rfc (Debian's doc-rfc package, /usr/share/doc/RFC): a known-item set.
// Every rfcN.txt or rfcN.txt.gz found under the source folder (symlinks
// followed, so the package's links/ folder and its category folders may
// both list an RFC; the first path in lexical order is used) is a
// document, docno "rfcN", its text copied (gunzipped) unchanged. The query
// for RFC N has id N and is its title: the "title" of rfcN.json when that
// file exists and has one, else the title line(s) of the text (the first
// block of non-blank lines after the block holding "Request for
// Comments"). Its qrels are that one RFC (gain 1). RFCs whose normalised
// title (lowercased, white space collapsed) another RFC shares ("Assigned
// Numbers", "Internet Official Protocol Standards", ...) get no query: a
// known-item query must have one right answer. An RFC whose title cannot
// be found gets no query either.
//
// # Decisions
//
// SMART files are parsed strictly: a field marker is a line that is
// exactly "." and one capital letter, or ".I" and an id; text before the
// first field of a record, a repeated document or query id, an empty
// query, or a judgment naming an unknown query or document is an error, so
// a misparse cannot pass silently. One exception keeps real data intact:
// a marker for a field the record already has (or is in) is a line of the
// current field's text, because Cranfield's document 240 has ".A" and
// ".B" lines in the middle of its abstract. Carriage returns (cran.* uses
// CRLF) are dropped.
package collection
