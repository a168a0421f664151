package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
)

// Node is a serving node's presence in the cluster: it registers the
// shard replica of the index the node serves, and the new generation
// after each reload, until Close.
type Node struct {
	cfg    config.Cluster
	url    string
	id     string
	log    *slog.Logger
	cli    *clientv3.Client
	mu     sync.Mutex
	last   []Member // the latest indexes' members
	reg    *Registrar
	closed sync.Once
}

// NewNode connects to the cluster's etcd (c.Cluster) for a node serving
// on c.Server.Addr, logging to log (nil: discard). The node registers at
// Start.
func NewNode(c config.Config, log *slog.Logger) (*Node, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := &Node{cfg: c.Cluster, url: c.Cluster.AdvertiseURL, id: c.Cluster.NodeID, log: log}
	if n.url == "" {
		host, port, err := net.SplitHostPort(c.Server.Addr)
		if err != nil || port == "0" || host == "" || net.ParseIP(host).IsUnspecified() {
			return nil, fmt.Errorf("cluster: brokers cannot reach server.addr %q as it is: set cluster.advertise_url", c.Server.Addr)
		}
		n.url = "http://" + c.Server.Addr
	}
	u, err := url.Parse(n.url)
	if err != nil {
		return nil, fmt.Errorf("cluster: advertise URL %q: %w", n.url, err)
	}
	if n.id == "" {
		n.id = u.Host
	}
	if n.cli, err = Dial(Config{Endpoints: c.Cluster.Endpoints, DialTimeout: c.Cluster.DialTimeout}); err != nil {
		return nil, err
	}
	return n, nil
}

// Loaded records the indexes the node now serves and, once started,
// registers them. A node serving one index registers its shard of its
// collection; one serving a whole sharded collection (several indexes)
// answers for all of it, so it registers as the one shard of a
// collection of one, at the newest of its shards' generations.
// cluster.collection overrides the collection's identity.
func (n *Node) Loaded(parts []*index.Index) {
	info, _ := parts[0].Shard()
	m := Member{Collection: info.Collection, Shard: info.Index, Shards: info.Count, URL: n.url, Node: n.id, FirstDoc: info.FirstDoc}
	if len(parts) > 1 {
		m.Shard, m.Shards = 0, 1
	}
	for _, ix := range parts {
		m.Generation = max(m.Generation, ParseGeneration(ix.Meta().Generation))
		m.Docs += uint64(ix.NumDocs())
	}
	if n.cfg.Collection != "" {
		m.Collection = n.cfg.Collection
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = []Member{m}
	if n.reg != nil {
		if err := n.reg.Set(n.last); err != nil {
			n.log.Error("cluster: registration refused", "err", err)
		}
	}
}

// Start registers the node's latest index (the node accepts
// connections by then).
func (n *Node) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.last) == 0 {
		return fmt.Errorf("cluster: node %s has no index to register", n.id)
	}
	reg, err := NewRegistrar(n.cli, RegistrarOptions{Prefix: n.cfg.Prefix, LeaseTTL: n.cfg.LeaseTTL, Logger: n.log}, n.last)
	if err != nil {
		return err
	}
	n.reg = reg
	for _, m := range n.last {
		n.log.Info("cluster: registering", "node", n.id, "url", n.url, "collection", m.Collection,
			"shard", m.Shard, "shards", m.Shards, "generation", m.Generation, "etcd", n.cfg.Endpoints)
	}
	return nil
}

// Close deregisters the node (its lease revoked, so brokers stop sending
// it queries at once) and closes the etcd client; later calls do nothing.
func (n *Node) Close() error {
	var err error
	n.closed.Do(func() {
		n.mu.Lock()
		reg := n.reg
		n.reg = nil
		n.mu.Unlock()
		if reg != nil {
			err = reg.Close(2 * time.Second)
		}
		n.cli.Close()
	})
	return err
}
