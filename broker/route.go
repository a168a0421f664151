package broker

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/cluster"
)

// replica is one registered shard replica and what the broker knows of
// it. Replicas outlive routing tables, so that their counters do.
type replica struct {
	m           cluster.Member
	outstanding atomic.Int64 // requests sent and not yet answered
	downUntil   atomic.Int64 // unix ns: skipped until then after a failure
	requests    atomic.Int64
	errors      atomic.Int64
	lat         *window
	pm          replicaMetrics
}

// down reports whether r failed lately.
func (r *replica) down(now time.Time) bool { return now.UnixNano() < r.downUntil.Load() }

// shard is one shard's routing: the replicas of the generation queries
// are sent to, and the shard's counters.
type shard struct {
	index      int
	generation int64
	firstDoc   uint32 // the shard's collection docids, as its routed replicas register them
	docs       uint64
	replicas   []*replica // serving generation, sorted by node
	others     []*replica // registered at other generations: not sent queries
	next       atomic.Uint64
	st         *shardState
}

// shardState is a shard's state that survives routing changes.
type shardState struct {
	// lat and batchLat are successful answers' latencies, of /search
	// and of /msearch: the running p95s their requests are hedged
	// against (a multi-search takes longer than one query).
	lat      *window
	batchLat *window
	requests atomic.Int64
	errors   atomic.Int64 // answers that failed on every replica tried
	retries  atomic.Int64
	hedges   atomic.Int64
}

// table is one membership's routing: the collection served and, per
// shard, where its queries go.
type table struct {
	collection string
	shards     []*shard // by index; a shard without replicas is missing
	consistent bool     // every shard serves one generation
	gens       string   // the shards' generations, for cache keys
}

// missing lists the shards no replica serves.
func (t *table) missing() []int {
	var out []int
	for _, s := range t.shards {
		if len(s.replicas) == 0 {
			out = append(out, s.index)
		}
	}
	return out
}

// pick chooses the replica of s to send a request to: the one with the
// fewest requests outstanding among those not tried and not down, ties
// broken in turn; a replica that is down is chosen only when no other
// is left. nil when every replica has been tried.
func (s *shard) pick(tried []*replica, now time.Time) *replica {
	n := len(s.replicas)
	if n == 0 {
		return nil
	}
	start := int(s.next.Add(1) % uint64(n))
	var best *replica
	var bestOut int64
	bestDown := true
	for i := range n {
		r := s.replicas[(start+i)%n]
		if slices.Contains(tried, r) {
			continue
		}
		down, out := r.down(now), r.outstanding.Load()
		if best == nil || (bestDown && !down) || (down == bestDown && out < bestOut) {
			best, bestOut, bestDown = r, out, down
		}
	}
	return best
}

// groupKey identifies the members of one collection split one way.
type groupKey struct {
	collection string
	shards     int
}

// route builds the routing table of a membership: the collection to serve
// (want, or when empty the one whose newest consistent generation is the
// newest, preferring one every shard of which is served), and per shard
// the replicas of the generation chosen. The generation is the newest that
// every shard has a live replica of, so that a query is answered by one
// state of the collection; when there is none (a rolling reload half
// done, a shard whose every replica is at another generation), each
// shard falls back to its own newest generation and the table says it is
// not consistent. replicaOf returns the long-lived replica of a member.
func route(members []cluster.Member, want string, replicaOf func(cluster.Member) *replica, stateOf func(int) *shardState) *table {
	groups := map[groupKey][]cluster.Member{}
	for _, m := range members {
		if want == "" || m.Collection == want {
			k := groupKey{m.Collection, m.Shards}
			groups[k] = append(groups[k], m)
		}
	}
	type candidate struct {
		k       groupKey
		covered int   // shards with a replica
		gen     int64 // newest generation every shard has, -1 if none
	}
	var best *candidate
	for k, ms := range groups {
		c := candidate{k: k, gen: -1}
		gens := make([]map[int64]bool, k.shards)
		for _, m := range ms {
			if gens[m.Shard] == nil {
				gens[m.Shard] = map[int64]bool{}
				c.covered++
			}
			gens[m.Shard][m.Generation] = true
		}
		if c.covered == k.shards {
			c.gen = commonNewest(gens)
		}
		better := best == nil || c.covered*best.k.shards > best.covered*c.k.shards || // a larger share of the shards
			(c.covered*best.k.shards == best.covered*c.k.shards && (c.gen > best.gen ||
				c.gen == best.gen && cmp.Or(cmp.Compare(c.k.collection, best.k.collection), cmp.Compare(c.k.shards, best.k.shards)) > 0))
		if better {
			best = &c
		}
	}
	t := &table{consistent: true}
	if best == nil {
		t.collection = want
		return t
	}
	t.collection = best.k.collection
	ms := groups[best.k]
	t.shards = make([]*shard, best.k.shards)
	for i := range t.shards {
		t.shards[i] = &shard{index: i, generation: -1, st: stateOf(i)}
	}
	for _, m := range ms { // each shard's generation
		s := t.shards[m.Shard]
		if best.gen >= 0 {
			s.generation = best.gen
		} else {
			s.generation = max(s.generation, m.Generation)
		}
	}
	for _, m := range ms {
		s := t.shards[m.Shard]
		if m.Generation == s.generation {
			s.replicas = append(s.replicas, replicaOf(m))
		} else {
			s.others = append(s.others, replicaOf(m))
		}
	}
	var gens []string
	for _, s := range t.shards {
		byNode := func(a, b *replica) int { return cmp.Compare(a.m.Node, b.m.Node) }
		slices.SortFunc(s.replicas, byNode)
		slices.SortFunc(s.others, byNode)
		if len(s.replicas) > 0 {
			s.firstDoc, s.docs = s.replicas[0].m.FirstDoc, s.replicas[0].m.Docs
		}
		gens = append(gens, strconv.FormatInt(s.generation, 10))
		if len(s.replicas) > 0 && s.generation != t.shards[0].generation {
			t.consistent = false
		}
	}
	t.gens = fmt.Sprintf("%s\x00%d\x00%s", t.collection, len(t.shards), strings.Join(gens, ","))
	return t
}

// commonNewest is the newest generation in every set, -1 if none is.
func commonNewest(gens []map[int64]bool) int64 {
	newest := int64(-1)
	for g := range gens[0] {
		all := true
		for _, s := range gens[1:] {
			all = all && s[g]
		}
		if all && g > newest {
			newest = g
		}
	}
	return newest
}
