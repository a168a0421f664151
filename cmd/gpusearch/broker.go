package main

import (
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/broker"
	"github.com/gpusearch/gpusearch/cluster"
)

func init() { subcommands = append(subcommands, newBrokerCmd) }

func newBrokerCmd() *cobra.Command {
	var addr string
	var etcd []string
	cmd := &cobra.Command{
		Use:   "broker --config FILE [--addr HOST:PORT] [--etcd URL,...]",
		Short: "Answer the search API over a cluster's shards, following its membership in etcd",
		Long: `Serve GET /search, POST /msearch, /documents/{docid}, /healthz, /stats
and /metrics over the index nodes registered in etcd (cluster.endpoints,
cluster.prefix) until SIGINT or SIGTERM: each query goes to one replica of
every shard, and the shards' hits are merged into the collection's top k.
An answer missing a shard says "partial": true and lists the missing
shards; /healthz answers 503 while a shard has no replica. Settings:
broker.* (docs/cluster.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			cfg.Broker.Addr = pick(fl.Changed("addr"), addr, cfg.Broker.Addr)
			if fl.Changed("etcd") {
				cfg.Cluster.Endpoints = etcd
			}
			if !cfg.Cluster.Enabled() {
				return usagef("no etcd endpoints: give --etcd URL or cluster.endpoints")
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, nil))
			log.Info("garbage collector", "gogc", applyGC(cfg.Server.GCPercent))
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			b, err := broker.New(broker.Options{Config: cfg, Logger: log, Registry: reg})
			if err != nil {
				return err
			}
			defer b.Close()
			cli, err := cluster.Dial(cluster.Config{Endpoints: cfg.Cluster.Endpoints, DialTimeout: cfg.Cluster.DialTimeout})
			if err != nil {
				return err
			}
			defer cli.Close()
			w := cluster.Watch(cli, cfg.Cluster.Prefix, log, b.Update)
			defer w.Close()
			return b.ListenAndServe(cmd.Context())
		},
	}
	addConfigFlag(cmd)
	cmd.Flags().StringVar(&addr, "addr", "", "listen address HOST:PORT (default from config: broker.addr, 127.0.0.1:8090)")
	cmd.Flags().StringSliceVar(&etcd, "etcd", nil, "etcd client URLs, comma-separated (default from config: cluster.endpoints)")
	addProfiling(cmd)
	return cmd
}
