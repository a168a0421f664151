// Package gen makes synthetic collections with the statistics of real
// text and writes them straight into an index (no text is produced), fits
// those statistics to a real index, and draws query sets whose list
// lengths follow efficiency-track query logs. It is how gpusearch is
// measured from 10^4 to 2.5x10^7 documents where no real text of that size
// is at hand.
//
// # The model
//
// Documents come in groups of 32 consecutive docids that share an
// expected length w, drawn log-normal (Params.LenMu, LenSigma): pages of
// one directory have similar lengths, and a burst's document is then found
// by a search over groups (an array that stays in cache) and a division.
// Consecutive documents also form sites whose sizes are log-normal
// (SiteMu, SiteSigma); in URL order a site is a run of docids.
//
// Terms have ranks. The term of rank r owns the share f(r) of all tokens,
// f(r) proportional to r^-s up to a knee r0 and to r^-(1/beta) past it: the
// head is Zipf's law (ZipfS), and a tail of exponent 1/beta is what makes
// the vocabulary of T tokens grow as Heaps' law K*T^beta (HeapsK,
// HeapsBeta). The knee is solved, for the collection being generated, so
// that its expected vocabulary is K*T^beta.
//
// Occurrences come in bursts. A burst has size X with P(X >= k) = k^-a
// (TFTail; a = 1.5 fits the sample crawl's frequencies: 64% of postings
// have tf 1, 18% tf 2, 7% tf 3), capped at max(1, w/4) so that one burst
// does not make a short document long. A term's expected number of bursts
// is B = U*f(r), where U is the collection's total burst weight; a
// document's burst weight is u = w / E[min(X, cap)], so that it expects w
// tokens. The bursts split in two:
//
//   - background, the share 1-Locality: a Poisson process over all
//     documents, at a rate proportional to u; the bursts landing in one
//     document add up, so frequent terms get large frequencies;
//   - home, the share Locality: the term has home sites, drawn with
//     probability proportional to their size until they hold B_home /
//     HomeDensity documents (all sites when that is half the collection);
//     in them it is present in document d with probability
//     1 - exp(-rho*u_d), one burst each, rho solved (Newton) so that the
//     expected number of present documents is B_home, up to 90% of the
//     home documents, the rest joining the background.
//
// In URL order the home sites are runs of docids, so lists are dense in
// runs and sparse between them, as URL order makes real lists; with order
// "random" the same collection's docids are permuted, for comparison.
// Ranks whose expected bursts fall below 1/16 are not drawn one by one:
// the number of terms past them that occur is drawn at once (Poisson), and
// each of those gets a single burst.
//
// # Invariants
//
//   - A document's length is exactly the sum of its frequencies: the lengths
//     are accumulated in a first pass over all terms (the index writer needs
//     them before the first list, for the block-max scores), and the lists
//     are drawn again, identically, in the second pass that writes them.
//   - Every term has its own random stream (PCG seeded from the seed and the
//     term id), the document weights one stream per 4096 groups, and the
//     sites and the permutations their own, so the index is byte-for-byte
//     the same for any number of workers.
//   - Terms are spelled with the consonants bcdfghjkmnpqrtvwxz, fixed width,
//     in lexicon order; a keyed permutation maps lexicon positions to ranks,
//     so frequent terms are spread through the lexicon as real words are.
//     With no vowel (and no l, s or y) Porter2 leaves every term unchanged,
//     so a term typed as a query finds itself.
//   - URLs are http://sSITE.gen.test/NUM with fixed-width numbers, so URL
//     order is generation order; in random order URLs move with their
//     documents.
//
// # Scale and memory
//
// Generate keeps, per document, its length (4 bytes), its URL (about 35
// bytes) and, during the first pass, one more length per worker; per group
// of 32 documents a weight and a cap. The first pass runs every term on
// every core; in the second, workers fill batches of 4096 consecutive
// lexicon positions ahead of the single index writer, at most
// Options.AheadPostings postings ahead: a worker pays for each list from
// that budget before keeping it (the batch the writer needs next is always
// let through), batches are not recycled (a recycled batch keeps the
// capacity of the largest it ever held), and a worker drops its scratch
// after a list of over a million postings. Beyond the per-document tables
// the second pass thus holds the budget, at most twice over for slice
// growth, one batch, and one list per worker. The writer (encoding and
// block-max scores, one goroutine) is the bottleneck on many cores.
//
// # Shards
//
// With Options.Shards = S, Generate writes dir as a sharded collection
// (docs/shards.md) without ever writing the whole index: shard j holds
// docids [j*N/S, (j+1)*N/S), the ranges index.Split cuts in an index
// without crawl files. The workers of the second pass also cut each list
// at the shards' first docids (a binary search per shard) and shift each
// part to its shard's docids; S goroutines, one index writer each, add
// every batch's parts in lexicon order, a shard's writer taking the whole
// list's length as the term's collection df (a term none of whose
// postings fall in a shard is not added there). A batch counts against
// AheadPostings until the slowest writer has written it, and the batch
// that writer needs next is always let through. Once every shard is
// committed the manifest is (index.Dir.CommitManifest). The collection's
// identity is a hash of the options, so the shards are, byte for byte,
// what index.Split writes from the unsharded index under that identity.
// URL order only: random order scatters every URL range over the docids.
// With S writers, the write pass's single-writer bottleneck is shared S
// ways.
//
// # Fitting
//
// Fit measures an index's Moments (mean and spread of ln length, number of
// terms, Heaps slope over random document samples, Zipf slope over ranks 1
// to 256, burst-law fit to the frequencies of lists with df <= N/16, mean
// log2 d-gap) and solves for the parameters by the simulated method of
// moments: it draws synthetic collections of the same number of documents
// in memory and moves each parameter by the gap between its moment on the
// index and on the simulation (averaging up to four seeds below 50,000
// documents, where one layout's luck matters). HeapsBeta is taken as
// measured, not iterated (see Fit), and the site sizes and home density
// keep their defaults: postings do not identify them.
//
// DefaultParams model a Gov2-like collection: mean document length about
// 900 tokens, Zipf head s = 1, about 250 postings per document, and a
// burst law and locality close to the sample crawl's. docs/scale.md compares
// a synthetic collection with the sample crawl it was fitted to.
//
// # Queries
//
// Queries draws 2 to 5 distinct terms per query, with shares 40%, 30%,
// 18% and 12% (QueryLengthShares; web and efficiency-track logs are
// dominated by short queries, and one-term queries need no list
// processing). Each term is drawn with probability proportional to
// df^alpha, with alpha solved by bisection so that the expected sum of the
// query terms' document frequencies is 0.148 N (Gov2PostingsPerDoc: Ding,
// He and Suel's 1000 efficiency-track queries on the 25.2 million Gov2
// documents averaged 3.74 million postings per query). Long lists are
// thus common, and the work per query grows in proportion to the
// collection. Porter2 is not idempotent (a stem re-stemmed can change), so
// a drawn term is kept only if the analyzer maps it back to itself; the
// rest are redrawn and counted in QueryReport.Rejected.
package gen
