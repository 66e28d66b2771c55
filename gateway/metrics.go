package gateway

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"hark/gateway/limits"
	"hark/gateway/store"
	"hark/gateway/usage"
)

// metrics are the gateway's Prometheus series (docs/gateway.md,
// *Operating*), in a registry of the Server's own: several gateways may
// run in one process (tests, hark's embedded one beside a served one).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // by route, method and status
	latency  *prometheus.HistogramVec // by route
	refused  *prometheus.CounterVec   // by the limit that refused
	streams  *prometheus.GaugeVec     // open WebSocket streams, by kind
	engine   *prometheus.HistogramVec // engine time, by operation
	jobRun   *prometheus.HistogramVec // a job's run on this node, by tool and end
}

// engineBuckets reach from a cached search (milliseconds) to a research
// (minutes).
var engineBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

func newMetrics(s *Server, db *store.DB) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hark_http_requests_total",
			Help: "Requests answered, by route pattern, method and status."}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hark_http_request_duration_seconds",
			Help: "Time to answer a request (a stream's whole life), by route pattern.", Buckets: engineBuckets}, []string{"route"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hark_refusals_total",
			Help: "Requests refused by a limit: rate (per key), quota (credits), admission (a class full), streams_per_key, slow_body, limiter_unavailable."}, []string{"limit"}),
		streams: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hark_streams_open",
			Help: "WebSocket streams open, by kind (tts, stt)."}, []string{"kind"}),
		engine: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hark_engine_seconds",
			Help: "Time spent in engines, by operation (a tool's slug, voices, tts, stt, tts_stream, stt_stream).", Buckets: engineBuckets}, []string{"op"}),
		jobRun: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hark_job_run_seconds",
			Help: "A job's run on this node, by tool and how it ended (completed, failed, stopped).", Buckets: engineBuckets}, []string{"tool", "end"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.refused, m.streams, m.engine, m.jobRun,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(db.SQL(), db.Dialect().String()))
	for _, a := range s.admissions() {
		a := a
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hark_admission_running", Help: "Calls running, by admission class.",
				ConstLabels: prometheus.Labels{"class": a.Class()}}, func() float64 { return float64(a.Running()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hark_admission_waiting", Help: "Calls queued for a slot, by admission class.",
				ConstLabels: prometheus.Labels{"class": a.Class()}}, func() float64 { return float64(a.Waiting()) }))
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hark_reservations_open",
		Help: "Credit reservations this node holds for calls under way."}, func() float64 { return float64(s.meter.Open()) }))
	if pool := db.Pool(); pool != nil {
		stat := func(name, help string, f func() float64) prometheus.Collector {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
		}
		m.reg.MustRegister(
			stat("hark_db_pool_acquired_conns", "PostgreSQL connections in use.", func() float64 { return float64(pool.Stat().AcquiredConns()) }),
			stat("hark_db_pool_idle_conns", "PostgreSQL connections idle.", func() float64 { return float64(pool.Stat().IdleConns()) }),
			stat("hark_db_pool_max_conns", "PostgreSQL connections at most (max_db_conns).", func() float64 { return float64(pool.Stat().MaxConns()) }))
	}
	m.reg.MustRegister(&dbCollector{s: s, db: db})
	return m
}

// handler serves the registry in Prometheus's text format.
func (m *metrics) handler(log func(string, ...any)) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: promLogger(log), ErrorHandling: promhttp.ContinueOnError})
}

type promLogger func(string, ...any)

func (l promLogger) Println(v ...any) { l("metrics", "error", v) }

// request counts an answered request.
func (m *metrics) request(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "other"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// refusal counts a request a limit refused, if err is one.
func (m *metrics) refusal(err error) {
	var le *limits.Error
	var qe *usage.QuotaError
	switch {
	case errors.As(err, &le) && le.Limit != "":
		m.refused.WithLabelValues(le.Limit).Inc()
	case errors.As(err, &qe):
		m.refused.WithLabelValues("quota").Inc()
	}
}

// engineTime records time spent in an engine since start.
func (m *metrics) engineTime(op string, start time.Time) {
	m.engine.WithLabelValues(op).Observe(time.Since(start).Seconds())
}

// dbCollector reads at each scrape what only the database knows: the
// reservations pending in the ledger (every replica's), and the jobs by
// state. A database that does not answer within a second leaves them out
// of that scrape.
type dbCollector struct {
	s  *Server
	db *store.DB
}

var (
	pendingDesc = prometheus.NewDesc("hark_ledger_reservations_pending", "Reservations pending in the ledger, every replica's.", nil, nil)
	jobsDesc    = prometheus.NewDesc("hark_jobs", "Jobs in the database, by state.", []string{"state"}, nil)
)

func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- jobsDesc
}

func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if n, err := c.s.meter.Ledger().Pending(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n))
	}
	if c.s.jobs == nil {
		return
	}
	if counts, err := c.s.jobs.Counts(ctx); err == nil {
		for state, n := range counts {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), state)
		}
	}
}
