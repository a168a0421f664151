package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Registrar keeps a node's members registered in etcd under one lease
// that it keeps alive. When the lease is lost (etcd was unreachable for
// longer than its TTL), it grants a new one and registers again, so a
// node outlives an etcd outage and comes back into the rotation after it.
type Registrar struct {
	cli    *clientv3.Client
	prefix string
	ttl    int64 // seconds
	log    *slog.Logger

	mu      sync.Mutex
	members []Member
	lease   clientv3.LeaseID // 0 while none is held
	kick    chan struct{}    // Set changed the members
	cancel  context.CancelFunc
	done    chan struct{}
}

// RegistrarOptions configure a Registrar.
type RegistrarOptions struct {
	Prefix   string        // key prefix, e.g. /gpusearch
	LeaseTTL time.Duration // rounded up to whole seconds; etcd raises a TTL below its minimum (2s by default) to it
	Logger   *slog.Logger  // nil: discard
}

// NewRegistrar registers members (each checked) and keeps them
// registered until Close.
func NewRegistrar(cli *clientv3.Client, opts RegistrarOptions, members []Member) (*Registrar, error) {
	for _, m := range members {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("cluster: member %s: %w", m.Key(opts.Prefix), err)
		}
	}
	ttl := int64((opts.LeaseTTL + time.Second - 1) / time.Second)
	if ttl < 1 {
		return nil, fmt.Errorf("cluster: lease TTL %s: want at least 1s", opts.LeaseTTL)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registrar{cli: cli, prefix: opts.Prefix, ttl: ttl, log: log.With("component", "cluster"),
		members: slices.Clone(members), kick: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go r.run(ctx)
	return r, nil
}

// Set replaces the registered members, as after a reload to a new
// generation; removed members' keys are deleted.
func (r *Registrar) Set(members []Member) error {
	for _, m := range members {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("cluster: member %s: %w", m.Key(r.prefix), err)
		}
	}
	r.mu.Lock()
	r.members = slices.Clone(members)
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
	return nil
}

// Close stops renewing the lease and revokes it, which deletes the
// node's keys at once (a graceful shutdown); if etcd cannot be reached
// within timeout, the keys go when the lease expires.
func (r *Registrar) Close(timeout time.Duration) error {
	r.cancel()
	<-r.done
	r.mu.Lock()
	lease := r.lease
	r.mu.Unlock()
	if lease == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := r.cli.Revoke(ctx, lease); err != nil {
		return fmt.Errorf("cluster: revoking the lease: %w", err)
	}
	return nil
}

// run grants a lease, registers the members under it and keeps it alive,
// starting over after a lost lease or a failed registration.
func (r *Registrar) run(ctx context.Context) {
	defer close(r.done)
	backoff := newBackoff()
	var registered []string // keys written under the current lease
	for ctx.Err() == nil {
		lctx, lcancel := context.WithCancel(ctx) // ends this lease's keep-alive
		lease, ka, err := r.grant(lctx)
		if err != nil {
			lcancel()
			r.log.Warn("etcd: no lease; retrying", "err", err)
			backoff.wait(ctx)
			continue
		}
		registered = nil
		for ctx.Err() == nil {
			if registered, err = r.register(ctx, lease, registered); err != nil {
				r.log.Warn("etcd: registering failed; retrying", "err", err)
				break
			}
			backoff.reset()
			if !r.hold(ctx, ka) {
				r.log.Warn("etcd: lease lost; registering again", "lease", fmt.Sprintf("%x", lease))
				break
			}
		}
		lcancel()
		if ctx.Err() == nil {
			r.mu.Lock()
			r.lease = 0
			r.mu.Unlock()
			backoff.wait(ctx)
		}
	}
}

// grant takes a new lease and starts keeping it alive.
func (r *Registrar) grant(ctx context.Context) (clientv3.LeaseID, <-chan *clientv3.LeaseKeepAliveResponse, error) {
	gctx, cancel := context.WithTimeout(ctx, time.Duration(r.ttl)*time.Second)
	g, err := r.cli.Grant(gctx, r.ttl)
	cancel()
	if err != nil {
		return 0, nil, err
	}
	ka, err := r.cli.KeepAlive(ctx, g.ID)
	if err != nil {
		return 0, nil, err
	}
	r.mu.Lock()
	r.lease = g.ID
	r.mu.Unlock()
	return g.ID, ka, nil
}

// register writes the current members under lease in one transaction,
// deleting the keys of earlier members that are gone, and returns the
// keys now registered.
func (r *Registrar) register(ctx context.Context, lease clientv3.LeaseID, before []string) ([]string, error) {
	r.mu.Lock()
	members := slices.Clone(r.members)
	r.mu.Unlock()
	var ops []clientv3.Op
	keys := make([]string, len(members))
	for i, m := range members {
		v, err := json.Marshal(m)
		if err != nil {
			return before, err
		}
		keys[i] = m.Key(r.prefix)
		ops = append(ops, clientv3.OpPut(keys[i], string(v), clientv3.WithLease(lease)))
	}
	for _, k := range before {
		if !slices.Contains(keys, k) {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	tctx, cancel := context.WithTimeout(ctx, time.Duration(r.ttl)*time.Second)
	defer cancel()
	if _, err := r.cli.Txn(tctx).Then(ops...).Commit(); err != nil {
		return before, err
	}
	r.log.Info("etcd: registered", "members", len(members), "lease", fmt.Sprintf("%x", lease))
	return keys, nil
}

// hold drains the lease's keep-alive answers until Set asks for a new
// registration (true) or the lease is lost or ctx done (false).
func (r *Registrar) hold(ctx context.Context, ka <-chan *clientv3.LeaseKeepAliveResponse) bool {
	for {
		select {
		case _, ok := <-ka:
			if !ok {
				return false
			}
		case <-r.kick:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// backoff is a capped exponential wait between retries.
type backoff struct{ d time.Duration }

func newBackoff() *backoff { return &backoff{d: 100 * time.Millisecond} }

func (b *backoff) reset() { b.d = 100 * time.Millisecond }

// wait sleeps the current delay (or until ctx is done) and doubles it, up
// to 2s: an etcd back from an outage is found within 2s.
func (b *backoff) wait(ctx context.Context) {
	t := time.NewTimer(b.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	b.d = min(2*b.d, 2*time.Second)
}
