package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
)

// healthcheck is `pixsandbox healthcheck`: exit 0 when the server's
// /healthz answers 200 {"status":"ok"} within the timeout, 1 otherwise (2 on
// bad usage). It needs nothing but the binary, so the distroless image's
// HEALTHCHECK and a CI service container's health option can run it.
func healthcheck(args []string, stdout, stderr io.Writer) int {
	return runHealthcheck(args, stdout, stderr, os.LookupEnv)
}

// runHealthcheck is healthcheck with the environment read through lookup.
func runHealthcheck(args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	fs := flag.NewFlagSet("pixsandbox healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", defaultHealthURL(lookup), "base URL of the server (default: PIXSANDBOX_URL, else the address of PIXSANDBOX_ADDR, else "+cmdline.DefaultURL+")")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	quiet := fs.Bool("quiet", false, "print nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage:\n  pixsandbox healthcheck [--url URL] [--timeout 3s] [--quiet]\n\nExits 0 when GET /healthz answers 200 {\"status\":\"ok\"} in time, 1 otherwise.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *timeout <= 0 {
		fs.Usage()
		return 2
	}
	err := checkHealth(*url, *timeout)
	if *quiet {
		stdout, stderr = io.Discard, io.Discard
	}
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}

// checkHealth asks base's /healthz once, within timeout.
func checkHealth(base string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("--url %q: %w", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /healthz answered %d", resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body); err != nil || body.Status != "ok" {
		return fmt.Errorf("GET /healthz did not answer {\"status\":\"ok\"}")
	}
	return nil
}

// defaultHealthURL is PIXSANDBOX_URL, else the server's own address
// (PIXSANDBOX_ADDR, as in the image) seen from the same host, else the
// default address.
func defaultHealthURL(lookup func(string) (string, bool)) string {
	if u, ok := lookup("PIXSANDBOX_URL"); ok && u != "" {
		return u
	}
	if addr, ok := lookup("PIXSANDBOX_ADDR"); ok && addr != "" {
		host, port, err := net.SplitHostPort(addr)
		if err == nil {
			if host == "" || host == "0.0.0.0" || host == "::" {
				host = "127.0.0.1"
			}
			return "http://" + net.JoinHostPort(host, port)
		}
	}
	return cmdline.DefaultURL
}
