package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/config"
	// Every codec family registers itself; indexes name their codecs.
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
)

// loadConfig reads --config (defaults when empty).
func loadConfig(cmd *cobra.Command) (config.Config, error) {
	path, _ := cmd.Flags().GetString("config")
	return config.Load(path)
}

// addConfigFlag adds the --config flag every config-reading command has.
func addConfigFlag(cmd *cobra.Command) {
	cmd.Flags().String("config", "", "YAML configuration file (configs/default.yaml documents every key)")
}

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONFile writes v as one indented JSON document to the file path.
func writeJSONFile(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := writeJSON(f, v)
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// stderrUnlessQuiet is where progress goes.
func stderrUnlessQuiet(quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return os.Stderr
}
