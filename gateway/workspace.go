package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"

	"hark/api"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/limits"
	"hark/gateway/usage"
)

// A workspace is a configured tenant with its engines built; its voice
// providers are looked up here.

// KnownProviders are the voice provider codes this gateway knows of, whether
// or not a workspace enables them.
var KnownProviders = []string{api.DefaultProvider, config.ProviderOpenAI, config.ProviderElevenLabs}

// workspace is a config.Workspace with its engines built.
type workspace struct {
	name string
	// account is the workspace as billing sees it: quota, period, and
	// its credits in the current period.
	account *usage.Account
	// searchConfigured is false when the workspace has no search backend or
	// lacks its credentials; every web tool then answers
	// api.MsgCredentialsMissing.
	searchConfigured bool
	// localSearch: vendor_search runs on this machine's index (CPU and
	// SQLite), not at a remote backend (waiting on the network); the two
	// take different admission classes.
	localSearch bool
	web         engine.Web
	voice       map[string]*voiceProvider
	toolList    json.RawMessage // the encoded tool list, see handleTools
	// rate is its keys' rate limit: its own (workspaces set, or
	// gateway.toml's rate_per_second), else [limits]'.
	rate atomic.Pointer[limits.Rate]
}

// setRate takes the rate limit of wc, or of l where wc has none.
func (ws *workspace) setRate(wc config.Workspace, l config.Limits) {
	r := limits.Rate{PerSecond: l.RatePerSecond, Burst: l.RateBurst}
	if wc.RatePerSecond > 0 {
		r.PerSecond = wc.RatePerSecond
	}
	if wc.RateBurst > 0 {
		r.Burst = wc.RateBurst
	}
	ws.rate.Store(&r)
}

// workspace is the workspace in force of a name, or nil.
func (s *Server) workspace(name string) *workspace { return (*s.workspaces.Load())[name] }

type voiceProvider struct {
	enabled, configured bool
	engineName          string // local, openai, elevenlabs
	engine              engine.VoiceProvider
}

// provider resolves a voice provider of the workspace, or says why not.
func (ws *workspace) provider(name string, known map[string]bool) (engine.VoiceProvider, error) {
	if strings.TrimSpace(name) == "" {
		return nil, &engine.InputError{Field: "provider", Rule: "is required"}
	}
	vp, ok := ws.voice[name]
	switch {
	case !ok && !known[name]:
		return nil, &httpError{status: http.StatusNotFound,
			msg: fmt.Sprintf("unknown voice provider %q (known: %s)", truncate(name, maxEcho), strings.Join(sortedKeys(known), ", "))}
	case !ok:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q is not enabled for this workspace", name)}
	case !vp.enabled:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q is disabled for this workspace", name)}
	case !vp.configured:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q has no credentials configured for this workspace", name)}
	case vp.engine == nil:
		return nil, &httpError{status: http.StatusServiceUnavailable,
			msg: fmt.Sprintf("voice provider %q has no engine in this gateway", name)}
	}
	return vp.engine, nil
}

// handleVoiceProviders lists the known voice providers and, for each,
// whether the calling workspace may use it: what a client asks before it
// offers a provider, instead of guessing from a failed call.
func (s *Server) handleVoiceProviders(w http.ResponseWriter, r *http.Request) {
	ws := stateOf(r).workspace
	out := []api.VoiceProviderStatus{}
	for _, name := range sortedKeys(s.known) {
		st := api.VoiceProviderStatus{Provider: name}
		if vp, ok := ws.voice[name]; ok {
			st.Engine = vp.engineName
		}
		if _, err := ws.provider(name, s.known); err != nil {
			st.Reason = err.Error()
		} else {
			st.Enabled = true
		}
		out = append(out, st)
	}
	s.writeData(w, r, out)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
