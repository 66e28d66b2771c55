package pcm

import "math"

// Resampler converts a stream of mono samples from one rate to another with
// a windowed-sinc (Blackman) polyphase filter: hark's one resampler, used
// by the gateway's engines and the client's playback. It keeps its state between
// calls, so fragments can be fed as they arrive, and it produces exactly
// ceil(n*out/in) samples for n input samples once flushed; durations stay
// exact whatever the fragmenting.
type Resampler struct {
	in, out int64
	half    int         // taps each side of the centre
	phases  [][]float32 // per output phase, 2*half taps
	nPhase  int64       // len(phases); out/gcd, or a quantised count
	exact   bool        // phases index the exact fraction

	buf  []float32 // input from absolute index base on
	base int64     // absolute index of buf[0]
	fed  int64     // input samples received
	next int64     // index of the next output sample
}

const maxPhases = 1024

// NewResampler converts from rate in to rate out.
func NewResampler(in, out int) *Resampler {
	r := &Resampler{in: int64(in), out: int64(out)}
	if in == out {
		return r
	}
	cutoff := 1.0
	if out < in {
		cutoff = float64(out) / float64(in)
	}
	r.half = int(math.Ceil(16 / cutoff))
	g := gcd(r.in, r.out)
	r.nPhase = r.out / g
	r.exact = true
	if r.nPhase > maxPhases {
		r.nPhase, r.exact = maxPhases, false
	}
	r.phases = make([][]float32, r.nPhase)
	for p := range r.phases {
		frac := float64(p) / float64(r.nPhase)
		taps := make([]float32, 2*r.half)
		var sum float64
		for m := range taps {
			// Tap m weighs input index ipos-half+1+m; d is the distance
			// from the output position to that input sample.
			d := frac + float64(r.half-1-m)
			v := cutoff * sinc(cutoff*d) * blackman(d, float64(r.half))
			taps[m] = float32(v)
			sum += v
		}
		for m := range taps { // unity gain at DC, no level drift
			taps[m] = float32(float64(taps[m]) / sum)
		}
		r.phases[p] = taps
	}
	// Left context before the first sample is silence.
	r.buf = make([]float32, r.half)
	r.base = -int64(r.half)
	return r
}

// InRate is the rate the resampler converts from.
func (r *Resampler) InRate() int { return int(r.in) }

// Produced counts the output samples so far.
func (r *Resampler) Produced() int64 { return r.next }

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

func blackman(d, half float64) float64 {
	if d <= -half || d >= half {
		return 0
	}
	x := math.Pi * d / half
	return 0.42 + 0.5*math.Cos(x) + 0.08*math.Cos(2*x)
}

// Write feeds input samples and appends the output samples now computable
// to dst.
func (r *Resampler) Write(dst []int16, src []int16) []int16 {
	if r.in == r.out {
		r.fed += int64(len(src))
		r.next += int64(len(src))
		return append(dst, src...)
	}
	for _, s := range src {
		r.buf = append(r.buf, float32(s))
	}
	r.fed += int64(len(src))
	return r.produce(dst, false)
}

// Flush pads the input with silence and appends the remaining output.
func (r *Resampler) Flush(dst []int16) []int16 {
	if r.in == r.out {
		return dst
	}
	return r.produce(dst, true)
}

func (r *Resampler) produce(dst []int16, final bool) []int16 {
	total := (r.fed*r.out + r.in - 1) / r.in // output count once all input is in
	for r.next < total {
		num := r.next * r.in
		ipos := num / r.out
		var p int64
		if r.exact {
			p = (num % r.out) * r.nPhase / r.out
		} else if p = int64(math.Round(float64(num%r.out) / float64(r.out) * float64(r.nPhase))); p == r.nPhase {
			p, ipos = 0, ipos+1
		}
		last := ipos + int64(r.half) // right-most input index needed
		if last >= r.base+int64(len(r.buf)) {
			if !final {
				break
			}
			// Pad with silence up to what the tail needs.
			for r.base+int64(len(r.buf)) <= last {
				r.buf = append(r.buf, 0)
			}
		}
		taps := r.phases[p]
		start := ipos - int64(r.half) + 1 - r.base
		var acc float32
		for m, t := range taps {
			acc += t * r.buf[start+int64(m)]
		}
		dst = append(dst, Clip16(acc))
		r.next++
	}
	// Drop input no longer needed by the next output sample.
	keepFrom := r.next*r.in/r.out - int64(r.half) + 1
	if drop := keepFrom - r.base; drop > 4096 && drop <= int64(len(r.buf)) {
		r.buf = append(r.buf[:0], r.buf[drop:]...)
		r.base += drop
	}
	return dst
}

// Clip16 rounds v to the nearest 16-bit sample, clipping at full scale.
func Clip16(v float32) int16 {
	if v >= 32767 {
		return 32767
	}
	if v <= -32768 {
		return -32768
	}
	return int16(math.Round(float64(v)))
}

// Scale multiplies samples by gain in place, clipping to 16 bits.
func Scale(s []int16, gain float64) {
	if gain == 1 {
		return
	}
	for i, v := range s {
		s[i] = Clip16(float32(float64(v) * gain))
	}
}
