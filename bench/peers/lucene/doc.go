// Package lucene runs Lucene 8 (Debian's liblucene8-java) as a bench/peers
// engine through Harness.java, which it embeds, compiles with the machine's
// javac into a temporary directory against the jars in /usr/share/java, and
// runs with java (see Harness.java for the protocol, the analyzers and the
// index settings).
//
// Analyzer "porter2" (the default) is the one to compare speed and relevance
// with gpusearch: StandardTokenizer (UAX #29, as gpusearch's
// blevesearch/segment), LowerCaseFilter and the Snowball English stemmer
// (Porter2, as gpusearch's kljensen/snowball), no stop words, so that
// differences come from the engines rather than from analysis. "english"
// (EnglishAnalyzer: possessive "'s" removed, 33 English stop words dropped,
// Porter1 stemming) is what a Lucene user would reach for in English: the
// stop words ("a", "the", "of", "be", ...) leave documents and AND queries,
// which shortens documents and loosens AND, and Porter1 conflates more
// ("generalization" and "general" both become "gener"; Porter2 keeps
// "general"); it is there to show what analysis alone changes, and
// docs/relevance.md measures it. "standard" is StandardAnalyzer (no stemming,
// no stop words in Lucene 8).
package lucene
