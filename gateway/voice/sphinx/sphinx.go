//go:build cgo

// Package sphinx wraps pocketsphinx's C decoder (the 0.8 API) for streaming
// recognition of 16 kHz mono s16le audio. It only guards the cgo boundary:
// a Decoder serialises its own calls, reports C failures as errors and
// never panics. Pooling, format conversion and result policy live in the
// voice package.
package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

static void hark_quiet(void) { err_set_logfp(NULL); }

// The second, flat-lexicon pass (fwdflat) stays on: turning it off halves
// the final result's latency (290 -> 150 ms on hark's benchmark) but
// costs 2-6 points of word error rate on flite's voices.
static ps_decoder_t *hark_ps_new(const char *hmm, const char *lm, const char *dict) {
	cmd_ln_t *cfg = cmd_ln_init(NULL, ps_args(), TRUE,
		"-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", NULL);
	if (cfg == NULL) return NULL;
	ps_decoder_t *ps = ps_init(cfg);
	cmd_ln_free_r(cfg);
	return ps;
}

static const char *hark_hyp(ps_decoder_t *ps) {
	int32 score = 0;
	return ps_get_hyp(ps, &score);
}

// hark_word_posterior returns the mean posterior probability of the words
// of the best hypothesis, silence and fillers left out, or -1 when it has
// none. ps_get_prob runs first: it computes the lattice's posteriors,
// which the segment iterator then reports per word.
static double hark_word_posterior(ps_decoder_t *ps) {
	logmath_t *lm = ps_get_logmath(ps);
	if (lm == NULL) return -1;
	ps_get_prob(ps);
	double sum = 0;
	int n = 0;
	ps_seg_t *seg;
	for (seg = ps_seg_iter(ps); seg != NULL; seg = ps_seg_next(seg)) {
		const char *w = ps_seg_word(seg);
		int32 ascr, lscr, lback;
		int32 prob = ps_seg_prob(seg, &ascr, &lscr, &lback);
		if (w == NULL || w[0] == '<' || w[0] == '[' || w[0] == '+') continue;
		sum += logmath_exp(lm, prob);
		n++;
	}
	return n ? sum / n : -1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

var quietOnce sync.Once

// Decoder is one loaded pocketsphinx decoder. Its methods may be called
// from any goroutine; they are serialised, because the C decoder is not
// safe for concurrent use.
type Decoder struct {
	mu    sync.Mutex
	ps    *C.ps_decoder_t
	inUtt bool
}

// New loads the model; this takes about a second and tens of megabytes.
func New(m Model) (*Decoder, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	quietOnce.Do(func() { C.hark_quiet() })
	hmm, lm, dict := C.CString(m.HMM), C.CString(m.LM), C.CString(m.Dict)
	defer C.free(unsafe.Pointer(hmm))
	defer C.free(unsafe.Pointer(lm))
	defer C.free(unsafe.Pointer(dict))
	ps := C.hark_ps_new(hmm, lm, dict)
	if ps == nil {
		return nil, fmt.Errorf("pocketsphinx: cannot load model %s", m.HMM)
	}
	return &Decoder{ps: ps}, nil
}

// StartUtt begins an utterance, ending any left open.
func (d *Decoder) StartUtt() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps == nil {
		return ErrClosed
	}
	if d.inUtt {
		C.ps_end_utt(d.ps)
		d.inUtt = false
	}
	if C.ps_start_utt(d.ps) < 0 {
		return errors.New("pocketsphinx: ps_start_utt failed")
	}
	d.inUtt = true
	return nil
}

// Process feeds 16 kHz mono samples to the open utterance.
func (d *Decoder) Process(samples []int16) error {
	if len(samples) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps == nil {
		return ErrClosed
	}
	if !d.inUtt {
		return errors.New("pocketsphinx: no utterance started")
	}
	n := C.ps_process_raw(d.ps, (*C.int16)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), 0, 0)
	if n < 0 {
		return errors.New("pocketsphinx: ps_process_raw failed")
	}
	return nil
}

// Hyp returns the current best hypothesis of the open utterance.
func (d *Decoder) Hyp() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps == nil {
		return "", ErrClosed
	}
	return goString(C.hark_hyp(d.ps)), nil
}

// EndUtt ends the utterance and returns its final hypothesis and its
// confidence: the decoder's posterior probability of each word of it,
// averaged over the words, in 0..1. (The posterior of the whole sentence,
// ps_get_prob, falls towards 0 with every word: 0.0005 for a nine-word
// sentence recognised perfectly.)
func (d *Decoder) EndUtt() (text string, confidence float64, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps == nil {
		return "", 0, ErrClosed
	}
	if !d.inUtt {
		return "", 0, errors.New("pocketsphinx: no utterance started")
	}
	d.inUtt = false
	if C.ps_end_utt(d.ps) < 0 {
		return "", 0, errors.New("pocketsphinx: ps_end_utt failed")
	}
	text = goString(C.hark_hyp(d.ps))
	if text == "" {
		return "", 0, nil
	}
	confidence = float64(C.hark_word_posterior(d.ps))
	confidence = min(max(confidence, 0), 1)
	return text, confidence, nil
}

// InSpeech reports whether the decoder's voice activity detector heard
// speech in the most recent audio of the open utterance.
func (d *Decoder) InSpeech() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ps != nil && d.inUtt && C.ps_get_in_speech(d.ps) != 0
}

// Reset abandons an open utterance so the decoder can be reused.
func (d *Decoder) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps != nil && d.inUtt {
		C.ps_end_utt(d.ps)
	}
	d.inUtt = false
}

// Close frees the decoder. It is safe to call more than once.
func (d *Decoder) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
}

func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}
