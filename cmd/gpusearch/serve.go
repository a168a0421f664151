package main

import (
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/api"
)

func init() { subcommands = append(subcommands, newServeCmd) }

func newServeCmd() *cobra.Command {
	var dir, addr string
	cmd := &cobra.Command{
		Use:   "serve --config FILE [--index DIR] [--addr HOST:PORT]",
		Short: "Serve an index over HTTP: REST search API, search page, metrics",
		Long: `Serve an index over HTTP until SIGINT or SIGTERM, then finish the requests
in flight within server.shutdown_timeout. Routes: GET / (search page),
/search, /documents/{docid}, /stats, /healthz, /metrics, and POST
/admin/reload (allowed on loopback addresses or with server.admin_reload).
The URL it listens on is logged to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			cfg.Server.Index = pick(fl.Changed("index"), dir, cfg.Server.Index)
			cfg.Server.Addr = pick(fl.Changed("addr"), addr, cfg.Server.Addr)
			if cfg.Server.Addr == "" {
				return usagef("empty listen address: give --addr HOST:PORT or server.addr")
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, nil))
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			srv, err := api.New(api.Options{Config: cfg, Logger: log, Registry: reg})
			if err != nil {
				return err
			}
			defer srv.Close()
			return srv.ListenAndServe(cmd.Context())
		},
	}
	addConfigFlag(cmd)
	cmd.Flags().StringVar(&dir, "index", "", "index directory (default from config: server.index)")
	cmd.Flags().StringVar(&addr, "addr", "", "listen address HOST:PORT (default from config: server.addr, 127.0.0.1:8080)")
	return cmd
}
