package gateway

import (
	"fmt"
	"net/http"

	"hark/api"
	"hark/gateway/engine"
)

// handleTTSInputs serves a provider's TTS inputs with their rules
// (api.TTSInputs): the ranges of speech_rate, pitch and loudness and the
// sample rates live in the provider, and clients read them from here.
func (s *Server) handleTTSInputs(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("provider")
	p, err := stateOf(r).workspace.provider(name, s.known)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d, ok := p.(engine.TTSDescriber)
	if !ok {
		s.writeError(w, r, &httpError{status: CodeNotFound, msg: fmt.Sprintf("provider %s does not describe its TTS inputs", truncate(name, 64))})
		return
	}
	s.writeData(w, r, api.TTSInputs{Provider: name, InputSchema: d.TTSInputs()})
}
