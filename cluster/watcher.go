package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Snapshot is the membership a Watcher last saw.
type Snapshot struct {
	Members  []Member  // sorted by collection, shard, node
	Revision int64     // etcd's revision of it; 0 before the first read
	Synced   time.Time // when etcd last answered (a read or a watch event); zero before
	// Err is why the watcher is resyncing, "" while it follows etcd's
	// changes: with an error, Members is the last membership seen.
	Err string
}

// Watcher follows the members registered under a prefix: it reads them
// all, then applies the watch's changes. When etcd cannot be reached it
// keeps the last membership it saw, and it reads everything again when
// the watch fails (a compacted revision, a lost leader).
type Watcher struct {
	cli      *clientv3.Client
	prefix   string
	log      *slog.Logger
	onChange func(Snapshot)

	cur    atomic.Pointer[Snapshot]
	mu     sync.Mutex // orders onChange calls
	cancel context.CancelFunc
	done   chan struct{}
}

// Watch starts following the members under prefix; onChange, if not
// nil, is called with each new snapshot, one call at a time.
func Watch(cli *clientv3.Client, prefix string, log *slog.Logger, onChange func(Snapshot)) *Watcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{cli: cli, prefix: membersPrefix(prefix), log: log.With("component", "cluster"), onChange: onChange,
		cancel: cancel, done: make(chan struct{})}
	w.cur.Store(&Snapshot{})
	go w.run(ctx)
	return w
}

// Snapshot returns the current membership.
func (w *Watcher) Snapshot() Snapshot { return *w.cur.Load() }

// Close stops the watch.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}

// publish stores a new snapshot and tells onChange.
func (w *Watcher) publish(s Snapshot) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cur.Store(&s)
	if w.onChange != nil {
		w.onChange(s)
	}
}

// run alternates a full read and a watch from the revision after it.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	backoff := newBackoff()
	for ctx.Err() == nil {
		members, rev, err := w.read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			last := w.Snapshot()
			if last.Err == "" {
				w.log.Warn("etcd: membership unreadable; keeping the last one seen", "members", len(last.Members), "err", err)
			}
			last.Err = err.Error()
			w.publish(last)
			backoff.wait(ctx)
			continue
		}
		backoff.reset()
		w.publish(Snapshot{Members: sorted(members), Revision: rev, Synced: time.Now()})
		err = w.follow(ctx, members, rev)
		if ctx.Err() != nil {
			return
		}
		w.log.Warn("etcd: watch ended; reading the membership again", "err", err)
		backoff.wait(ctx)
	}
}

// read gets every registration, skipping (and logging) malformed ones.
func (w *Watcher) read(ctx context.Context) (map[string]Member, int64, error) {
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := w.cli.Get(rctx, w.prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, 0, err
	}
	members := make(map[string]Member, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		m, err := decodeMember(kv.Key, kv.Value)
		if err != nil {
			w.log.Warn("etcd: skipping a registration", "err", err)
			continue
		}
		members[string(kv.Key)] = m
	}
	return members, resp.Header.Revision, nil
}

// staleAfter is how long etcd may stay silent before the snapshot says
// so: the watcher asks for a progress notification every second.
const staleAfter = 3 * time.Second

// follow applies the watch's events after rev to members, publishing
// each change, until the watch fails. While etcd is unreachable the
// client retries by itself and the channel stays open: the membership
// stays as last seen, and after staleAfter without an answer to its
// progress requests the snapshot carries an error saying so.
func (w *Watcher) follow(ctx context.Context, members map[string]Member, rev int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := w.cli.Watch(wctx, w.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithProgressNotify())
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	heard := time.Now()
	for {
		select {
		case wr, ok := <-wch:
			if !ok {
				return ctx.Err()
			}
			if err := wr.Err(); err != nil {
				return err
			}
			heard = time.Now()
			for _, ev := range wr.Events {
				key := string(ev.Kv.Key)
				switch ev.Type {
				case clientv3.EventTypeDelete: // deleted, or its lease expired
					delete(members, key)
				case clientv3.EventTypePut:
					m, err := decodeMember(ev.Kv.Key, ev.Kv.Value)
					if err != nil {
						w.log.Warn("etcd: skipping a registration", "err", err)
						delete(members, key)
						continue
					}
					members[key] = m
				}
			}
			if w.Snapshot().Err != "" {
				w.log.Info("etcd: answering again")
			}
			w.publish(Snapshot{Members: sorted(members), Revision: wr.Header.Revision, Synced: heard})
		case <-tick.C:
			pctx, pcancel := context.WithTimeout(wctx, time.Second)
			w.cli.RequestProgress(pctx) // the answer, if any, comes on wch
			pcancel()
			if last := w.Snapshot(); time.Since(heard) > staleAfter && last.Err == "" {
				w.log.Warn("etcd: no answer; routing by the last membership seen", "members", len(last.Members), "silent", time.Since(heard).Round(time.Second))
				last.Err = fmt.Sprintf("etcd has not answered since %s", heard.UTC().Format(time.RFC3339))
				w.publish(last)
			}
		}
	}
}

// sorted lists members by collection, shard and node.
func sorted(members map[string]Member) []Member {
	keys := slices.Sorted(maps.Keys(members))
	out := make([]Member, len(keys))
	for i, k := range keys {
		out[i] = members[k]
	}
	return out
}
