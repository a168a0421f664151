// Package layers holds no code, only a test that keeps the module's layers
// apart: the REST server, the query engines and the GPU search package must
// not link the indexer, the text analytics or the HTML parser, directly or
// through another package, with or without the cuda build tag.
package layers
