// Package bleve runs bleve v2.5.7 as a bench/peers engine, in-process.
//
// Analysis mirrors gpusearch's: a custom analyzer of bleve's "unicode"
// tokenizer (blevesearch/segment, the segmenter gpusearch uses), "to_lower"
// and "stemmer_en_snowball" (Porter2), no stop words. Documents have one
// field, "body", indexed with frequencies and norms only: not stored, no
// term vectors, no doc values, not in _all; bleve keeps each document's ID
// (its name, as gpusearch keeps a name) in its _id field. The build uses the
// scorch index type, batches of BatchDocs documents, and ends with a
// ForceMerge to one segment and Close, so the index is persisted and merged
// as Lucene's after forceMerge(1).
//
// Scoring: the mapping's ScoringModel is "bm25", and bleve's BM25 parameters
// are package variables (search.BM25_k1, search.BM25_b), set here to 0.9 and
// 0.4 for the whole process. bleve's BM25 is not the textbook one, and not
// gpusearch's: a term's frequency enters as sqrt(tf); the document length is
// recovered from a float32 norm 1/sqrt(len); the average length is rounded
// up to an integer; the idf ln(1+(N-df+0.5)/(df+0.5)) is multiplied once more
// by the query weight idf*queryNorm (queryNorm = 1/sqrt(sum of squared
// idfs)); and a disjunction multiplies its sum by coord = matched/total
// terms. So OR rankings differ from the other engines' by design, not by
// analysis; this package reports them as they are.
//
// Queries: the text is analysed with the same analyzer, duplicate terms
// merged, and the terms become a ConjunctionQuery (and) or DisjunctionQuery
// (or) of TermQuery on "body". A query's time covers analysis, building the
// query and SearchInContext with Size k and no stored fields.
package bleve
