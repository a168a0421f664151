package main

import (
	"log/slog"
	"net"
	"os"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { subcommands = append(subcommands, newServeCmd) }

func newServeCmd() *cobra.Command {
	var dir, addr string
	var etcd []string
	cmd := &cobra.Command{
		Use:   "serve --config FILE [--index DIR] [--addr HOST:PORT]",
		Short: "Serve an index over HTTP: REST search API, search page, metrics",
		Long: `Serve an index over HTTP until SIGINT or SIGTERM, then finish the requests
in flight within server.shutdown_timeout. Routes: GET / (search page),
/search, /documents/{docid}, /stats, /healthz, /metrics, and POST
/admin/reload (off unless server.admin_reload; then it wants
Authorization: Bearer TOKEN, the token of server.admin_token_file, and a
JSON body naming a directory under server.index_root). Requests naming a
host other than the server's (localhost, the listen host, server.hosts;
any IP address on a non-loopback bind) get 421. The URL it listens on is
logged to stderr. With cluster.endpoints set, the node registers the
shard its index holds in etcd (and each reload's generation) until it
stops; see gpusearch broker.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			cfg.Server.Index = pick(fl.Changed("index"), dir, cfg.Server.Index)
			cfg.Server.Addr = pick(fl.Changed("addr"), addr, cfg.Server.Addr)
			if fl.Changed("etcd") {
				cfg.Cluster.Endpoints = etcd
			}
			if cfg.Server.Addr == "" {
				return usagef("empty listen address: give --addr HOST:PORT or server.addr")
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, nil))
			log.Info("garbage collector", "gogc", applyGC(cfg.Server.GCPercent))
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			opts := api.Options{Config: cfg, Logger: log, Registry: reg, Auto: scheduler(cfg, log)}
			var node *cluster.Node
			if cfg.Cluster.Enabled() {
				if node, err = cluster.NewNode(cfg, log); err != nil {
					return err
				}
				defer node.Close()
				opts.Loaded = node.Loaded
			}
			srv, err := api.New(opts)
			if err != nil {
				return err
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", cfg.Server.Addr)
			if err != nil {
				return err
			}
			if node != nil {
				if err := node.Start(); err != nil {
					ln.Close()
					return err
				}
				// Leave the rotation before draining the requests in flight.
				go func() { <-cmd.Context().Done(); node.Close() }()
			}
			return srv.Serve(cmd.Context(), ln)
		},
	}
	addConfigFlag(cmd)
	cmd.Flags().StringVar(&dir, "index", "", "index directory (default from config: server.index)")
	cmd.Flags().StringVar(&addr, "addr", "", "listen address HOST:PORT (default from config: server.addr, 127.0.0.1:8080)")
	cmd.Flags().StringSliceVar(&etcd, "etcd", nil, "etcd client URLs, comma-separated: register in the cluster (default from config: cluster.endpoints)")
	addProfiling(cmd)
	return cmd
}

// scheduler makes engine=auto the CPU/GPU scheduler over each loaded
// index, with the cost model found beside it.
func scheduler(cfg config.Config, log *slog.Logger) api.AutoFunc {
	return func(ix *index.Index, cpu query.Engine, gpus []query.Engine) query.Engine {
		model, fitted, err := schedule.LoadModel(ix.Dir())
		if err != nil {
			log.Warn("cost model unreadable; using the default", "err", err)
			model = schedule.DefaultModel()
		}
		if _, shard := ix.Shard(); shard {
			// The engines over shards merge their answers (query.Sharded):
			// engines opened on ix alone would answer its docids only.
			model = model.WithCPUEngine("cpu")
		} else if len(model.CPUAlgorithms) > 0 || model.CPUEngineName() != "cpu" {
			// The fitted model chose other CPU engines for this index.
			if e, err := schedule.NewCPU(ix, model); err != nil {
				log.Warn("cost model names an unknown CPU engine; using cpu", "engines", model.CPUEngines(), "err", err)
				model = model.WithCPUEngine("cpu")
			} else {
				cpu = e
			}
		}
		policy := schedule.Policy(cfg.Server.Policy)
		if policy == schedule.PolicyGPU && len(gpus) == 0 {
			policy = schedule.PolicyCPU
		}
		workers := cfg.Server.CPUWorkers
		if workers == 0 && len(gpus) > 0 && policy != schedule.PolicyCPU {
			workers = servedCPUWorkers()
		}
		s, err := schedule.New(ix, schedule.Config{Policy: policy, Deadline: cfg.Server.Deadline, Model: model, CPU: cpu, GPUs: gpus,
			CPUWorkers: workers, GPUBatch: cfg.GPU.Batch, GPUWorkers: cfg.GPU.Workers, Window: cfg.GPU.Window})
		if err != nil {
			log.Warn("scheduler not started; engine=auto is the CPU", "err", err)
			return cpu
		}
		log.Info("engine=auto scheduler", "policy", policy, "gpus", len(gpus), "cpu_workers", s.CPUWorkers(), "fitted_model", fitted, "cpu_engines", model.CPUEngines())
		return s
	}
}

// servedCPUWorkers is server.cpu_workers' default beside a GPU: a CPU
// worker per 16 cores. Served over HTTP, queries come at the rate the
// cores can parse requests and write answers (80,000-118,000 a second on
// the H100 machine's 16 cores, far below the GPU's 300,000 and more AND
// queries), so the GPU has room for all of them and every CPU worker
// takes a core from HTTP: there the scheduler's in-process default (11
// workers) served 15-25% fewer AND queries than the GPU alone, and 1
// worker as many (docs/server.md). The one worker still
// answers cheap queries at once while the GPU batches the rest.
func servedCPUWorkers() int { return max(1, runtime.GOMAXPROCS(0)/16) }
