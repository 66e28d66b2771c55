package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/store"
)

func newServeCmd(a *App) *cobra.Command {
	var listen, opsListen, cfgPath string
	var allowPrivate, newKey bool
	var lim serveLimits
	var dbf serveDB
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway as a server for other hark clients",
		Long: `serve runs hark's gateway: the whole gateway interface (search tools, voice
REST and WebSocket streams) in front of the workspaces of a gateway config
(default $XDG_CONFIG_HOME/hark/gateway.toml). On first run it creates that
file with one local workspace and prints its API key once; only the key's
SHA-256 is stored. See docs/gateway.md, and docs/deploy.md for replicas on
PostgreSQL. "hark serve keys" adds and revokes keys while it runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if newKey {
				return printNewKey(a)
			}
			return runServe(cmd.Context(), a, listen, opsListen, cfgPath, allowPrivate, lim, dbf)
		},
	}
	// --config and --database are the keys subcommands' too.
	pf := cmd.PersistentFlags()
	pf.StringVar(&cfgPath, "config", "", "gateway config (default $XDG_CONFIG_HOME/hark/gateway.toml; created on first run)")
	pf.StringVar(&dbf.url, "database", "", "postgres:// URL that keeps what replicas share: usage, credit quotas, rate limits, API keys, the search index, jobs (default: HARK_DATABASE_URL, else database_url, else gateway.db)")
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on (default: listen in gateway.toml, else "+config.DefaultListen+")")
	f.StringVar(&opsListen, "ops-listen", "", "a second address serving /healthz, /readyz and /metrics with no token, for a private network (default: listen in [ops] of gateway.toml, else none)")
	f.BoolVar(&allowPrivate, "allow-private", false, "let the local web engine fetch private and loopback addresses")
	f.BoolVar(&newKey, "new-key", false, "print a new API key and the hash to add to gateway.toml, then exit")
	f.BoolVar(&dbf.migrateOnly, "migrate-only", false, "apply the database's migrations, print its schema version, and exit")
	f.IntVar(&lim.maxInvoke, "max-invoke", 0, "vendor_search calls on the local index run at once (default: one per core; limits.max_invoke)")
	f.IntVar(&lim.maxStreams, "max-streams", 0, "TTS and STT streams open at once (default 64; limits.max_streams)")
	f.IntVar(&lim.queue, "queue", 0, "calls of a class that may wait for a slot at most; the expected wait within queue_wait decides first (default: 64 per core; limits.queue_length)")
	f.IntVar(&lim.recognisers, "stt-recognisers", 0, "local speech recognisers, about 90 MB each (default: one per core; limits.stt_recognisers)")
	f.IntVar(&lim.streamsPerKey, "streams-per-key", 0, "open streams of one API key (default 8; limits.streams_per_key)")
	f.IntVar(&lim.connsPerClient, "max-conns-per-client", 0, "open connections of one client address (default 256; limits.max_conns_per_client)")
	cmd.AddCommand(newServeKeysCmd(a, &cfgPath, &dbf), newServeWorkspacesCmd(a, &cfgPath, &dbf), newServeUsageCmd(a, &cfgPath, &dbf))
	return cmd
}

// serveLimits are the flags that override gateway.toml's [limits]; zero
// leaves the file's value.
type serveLimits struct {
	maxInvoke, maxStreams, queue, recognisers, streamsPerKey, connsPerClient int
}

func (s serveLimits) apply(l *config.Limits) error {
	for _, p := range []struct {
		name  string
		flag  int
		field *int
	}{
		{"max-invoke", s.maxInvoke, &l.MaxInvoke}, {"max-streams", s.maxStreams, &l.MaxStreams}, {"queue", s.queue, &l.QueueLength},
		{"stt-recognisers", s.recognisers, &l.STTRecognisers}, {"streams-per-key", s.streamsPerKey, &l.StreamsPerKey},
		{"max-conns-per-client", s.connsPerClient, &l.MaxConnsPerClient},
	} {
		if p.flag < 0 {
			return fmt.Errorf("--%s: must be 1 or more (0 or absent: the config's value), got %d", p.name, p.flag)
		}
		if p.flag > 0 {
			*p.field = p.flag
		}
	}
	if l.STTRecognisers <= 0 {
		l.STTRecognisers = config.DefaultLimits().STTRecognisers
	}
	return nil
}

// printNewKey shows a fresh key once, with the line gateway.toml needs.
func printNewKey(a *App) error {
	key, err := auth.NewAPIKey()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "New API key (shown only now):\n\n    %s\n\n", key)
	fmt.Fprintf(a.stdout, "Add its SHA-256 to api_key_sha256 of a [[workspace]] in gateway.toml:\n\n    \"%s\"\n", auth.HashKey(key))
	return nil
}

func runServe(ctx context.Context, a *App, listen, opsListen, cfgPath string, allowPrivate bool, lim serveLimits, dbf serveDB) error {
	out := a.stdout
	cfgPath, err := serveConfigPath(cfgPath)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfgPath); errors.Is(err, fs.ErrNotExist) {
		key, err := writeNewConfig(cfgPath)
		if err != nil {
			return err
		}
		// The one intentional display of a key: it exists nowhere else.
		fmt.Fprintf(out, "Created %s with workspace \"local\" and a new API key.\n", cfgPath)
		fmt.Fprintf(out, "The key is shown only now (the file keeps its SHA-256):\n\n    %s\n\n", key)
	}
	gcfg, err := config.Load(cfgPath)
	if err != nil {
		return usageError{err}
	}
	if listen == "" {
		listen = gcfg.Listen
	}
	if listen == "" {
		listen = config.DefaultListen
	}
	if opsListen == "" {
		opsListen = gcfg.Ops.Listen
	}
	dataDir := serveDataDir(a, gcfg)
	if err := lim.apply(&gcfg.Limits); err != nil {
		return usageError{err}
	}
	dbURL, dbSource := dbf.resolve(gcfg.DatabaseURL)
	if err := config.CheckDatabaseURL(dbURL); err != nil {
		return usagef("%s: %v", dbSource, err)
	}
	if dbf.migrateOnly {
		return migrateOnly(ctx, a, dbURL, dbSource, dataDir)
	}
	pg, err := openPostgres(ctx, dbURL, dbSource, gcfg.Limits.MaxDBConns)
	if err != nil {
		return err
	}
	if pg != nil {
		defer pg.Close()
	}
	raw, err := store.OpenDBWith(dataDir, store.DBOptions{MaxConns: gcfg.Limits.MaxDBConns})
	if err != nil {
		return dataError{err}
	}
	defer raw.Close()
	// What replicas share lives in PostgreSQL when there is one; research
	// tasks and the log stay in the data directory either way.
	db := pg
	if db == nil {
		db = store.FromSQLite(raw)
	}
	if err := embedded.Migrate(ctx, db); err != nil {
		return dataError{err}
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, nil))
	eng := embedded.NewEngines(raw, allowPrivate, logger)
	eng.Recognisers = gcfg.Limits.STTRecognisers
	eng.Postgres = pg // the team's one search index, when there is one
	// The model, if any, runs on this node: a detached research job is
	// written by the model of the node that takes it.
	writer, err := embedded.ModelClient(ctx, gcfg.Model.WithEnv(a.getenv), logger)
	if err != nil {
		return usageError{err}
	}
	eng.Writer = writer
	defer eng.Close()
	srv, err := gateway.New(gateway.Options{Config: gcfg, DB: db, Engines: eng.Gateway(), Logger: logger, AllowPrivate: allowPrivate})
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		// New started the job workers; a gateway that never serves
		// stops them too, or they outlive the command.
		srv.Shutdown(context.Background())
		return usageError{fmt.Errorf("listen on %s: %w", listen, err)}
	}
	var opsLn net.Listener
	if opsListen != "" {
		if opsLn, err = net.Listen("tcp", opsListen); err != nil {
			ln.Close()
			srv.Shutdown(context.Background())
			return usageError{fmt.Errorf("--ops-listen (or [ops] listen): listen on %s: %w", opsListen, err)}
		}
		go func() {
			if err := srv.ServeOps(opsLn); err != nil {
				logger.Error("operator address stopped", "error", err)
			}
		}()
	}
	base := "http://" + ln.Addr().String()
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
		fmt.Fprintf(a.stderr, "hark: warning: listening on %s over plain HTTP: API keys cross the network in clear text; put a TLS proxy in front\n", ln.Addr())
	}
	fmt.Fprintf(out, "hark gateway listening on %s\n", base)
	fmt.Fprintf(out, "  config %s, data %s\n", cfgPath, dataDir)
	if opsLn != nil {
		fmt.Fprintf(out, "  operator routes /healthz, /readyz, /metrics on http://%s (no token: keep it private)\n", opsLn.Addr())
	}
	if dbURL != "" {
		fmt.Fprintf(out, "  usage, credit quotas, rate limits, API keys, the search index and jobs in PostgreSQL %s; the rest in the data directory\n", redactedURL(dbURL))
	}
	if len(srv.Workspaces()) == 0 {
		fmt.Fprintf(a.stderr, "hark: no workspace yet: every key is refused until one is added (hark serve workspaces add NAME, then hark serve keys add --workspace NAME)\n")
	}
	fmt.Fprintf(out, "Point a client at it:\n    export HARK_BASE_URL=%s\n    export HARK_API_KEY=<your key>\n", base)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		srv.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	grace := time.Duration(gcfg.Limits.ShutdownGrace)
	if grace <= 0 {
		grace = time.Duration(config.DefaultLimits().ShutdownGrace)
	}
	fmt.Fprintf(out, "shutting down: in-flight requests and streams get %s (interrupt again to stop now)\n", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	go func() {
		select {
		case <-again:
			cancel() // open streams end with an error frame now
		case <-sctx.Done():
		}
	}()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("shutdown grace ran out; open streams ended with an error frame", "error", err)
	}
	return <-served
}
