// Package cluster keeps a gpusearch cluster's membership in etcd: an index
// node registers each shard replica it serves under a lease it keeps
// alive (Registrar), and a broker follows the registrations from a
// snapshot and a watch (Watcher), keeping the last membership it saw
// through an etcd outage. A node that dies stops renewing its lease, and
// etcd deletes its keys when the lease expires.
package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Member is one shard replica a node serves, as registered in etcd.
type Member struct {
	Collection string `json:"collection"` // the sharded collection's identity
	Shard      int    `json:"shard"`      // 0 to Shards-1
	Shards     int    `json:"shards"`     // the collection's shards
	// Generation is the index commit the replica serves (gen-N's N):
	// the shards of a collection are committed together, so one number
	// names one consistent state of the collection.
	Generation int64  `json:"generation"`
	URL        string `json:"url"`  // the node's base URL, http://host:port
	Node       string `json:"node"` // the node's identity, unique in the cluster
	// FirstDoc and Docs are the shard's collection docids, FirstDoc to
	// FirstDoc+Docs-1: where a broker sends GET /documents/{docid}.
	FirstDoc uint32 `json:"first_doc"`
	Docs     uint64 `json:"docs"`
}

// MaxShards bounds a registration's shard count: a broker allocates a
// routing slot per shard, and a garbled key must not make it allocate
// billions.
const MaxShards = 1 << 16

// Validate checks the fields a broker relies on.
func (m Member) Validate() error {
	var errs []error
	if m.Shards < 1 || m.Shards > MaxShards || m.Shard < 0 || m.Shard >= m.Shards {
		errs = append(errs, fmt.Errorf("shard %d of %d: want 0 <= shard < shards <= %d", m.Shard, m.Shards, MaxShards))
	}
	if m.Node == "" {
		errs = append(errs, errors.New("empty node id"))
	}
	if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("url %q: want http://host:port", m.URL))
	}
	if m.Generation < 0 {
		errs = append(errs, fmt.Errorf("generation %d: want >= 0", m.Generation))
	}
	return errors.Join(errs...)
}

// Key is where m is registered under prefix:
// PREFIX/members/COLLECTION/SHARD/NODE, each part path-escaped.
func (m Member) Key(prefix string) string {
	return path.Join(membersPrefix(prefix), url.PathEscape(m.Collection), strconv.Itoa(m.Shard), url.PathEscape(m.Node))
}

// membersPrefix is the directory of every registration under prefix,
// ending in a slash so that /gpusearch does not also match /gpusearch2.
func membersPrefix(prefix string) string {
	return strings.TrimSuffix(prefix, "/") + "/members/"
}

// decodeMember reads a registration, checking it.
func decodeMember(key, value []byte) (Member, error) {
	var m Member
	if err := json.Unmarshal(value, &m); err != nil {
		return m, fmt.Errorf("cluster: registration %s: %w", key, err)
	}
	if err := m.Validate(); err != nil {
		return m, fmt.Errorf("cluster: registration %s: %w", key, err)
	}
	return m, nil
}

// ParseGeneration is the number of an index commit's name (gen-N), 0
// for a name that is not one.
func ParseGeneration(name string) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(name, "gen-"), 10, 64)
	if err != nil || n < 0 || !strings.HasPrefix(name, "gen-") {
		return 0
	}
	return n
}

// Config is how to reach etcd.
type Config struct {
	Endpoints   []string      // etcd client URLs
	DialTimeout time.Duration // connecting; 0: 2s
}

// Dial connects to etcd. The client reconnects by itself after an outage;
// its own logging is off, the registrar and watcher log what matters.
func Dial(c Config) (*clientv3.Client, error) {
	if len(c.Endpoints) == 0 {
		return nil, errors.New("cluster: no etcd endpoints")
	}
	dt := c.DialTimeout
	if dt <= 0 {
		dt = 2 * time.Second
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: c.Endpoints, DialTimeout: dt, Logger: zap.NewNop(),
		DialKeepAliveTime: 2 * time.Second, DialKeepAliveTimeout: 2 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd %v: %w", c.Endpoints, err)
	}
	return cli, nil
}
