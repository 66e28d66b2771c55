package relay

// mp3Frames counts the MPEG audio frames of an mp3 stream as it passes,
// chunk by chunk, to time it without decoding: a frame holds 1152
// samples (MPEG 1) or 576 (MPEG 2 and 2.5). An ID3v2 tag at the start is
// skipped; bytes that are not a frame are passed over one at a time.
type mp3Frames struct {
	pending []byte // the start of a frame header or tag cut by a chunk
	skip    int    // bytes of the current frame or tag still to pass
	samples int64
	rate    int // of the first frame
}

func (m *mp3Frames) write(b []byte) {
	for len(b) > 0 {
		if m.skip > 0 {
			n := min(m.skip, len(b))
			m.skip -= n
			b = b[n:]
			continue
		}
		m.pending = append(m.pending, b...)
		b = nil
		for len(m.pending) >= 10 {
			h := m.pending
			if h[0] == 'I' && h[1] == 'D' && h[2] == '3' {
				size := int(h[6]&0x7f)<<21 | int(h[7]&0x7f)<<14 | int(h[8]&0x7f)<<7 | int(h[9]&0x7f)
				m.consume(10 + size)
				continue
			}
			n, samples, rate := mp3Header(h)
			if n == 0 {
				m.pending = m.pending[1:]
				continue
			}
			if m.rate == 0 {
				m.rate = rate
			}
			m.samples += int64(samples)
			m.consume(n)
		}
	}
}

// consume passes n bytes from pending on, the rest of them later.
func (m *mp3Frames) consume(n int) {
	if n <= len(m.pending) {
		m.pending = append(m.pending[:0], m.pending[n:]...)
		return
	}
	m.skip = n - len(m.pending)
	m.pending = m.pending[:0]
}

// ms is the duration counted so far.
func (m *mp3Frames) ms() int {
	if m.rate == 0 {
		return 0
	}
	return int((m.samples*1000 + int64(m.rate)/2) / int64(m.rate))
}

// mp3Header reads the layer III frame header at the start of b: the
// frame's length, its samples and rate, or zeros when b starts with none.
func mp3Header(b []byte) (n, samples, rate int) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return 0, 0, 0
	}
	version := (b[1] >> 3) & 3 // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
	layer := (b[1] >> 1) & 3   // 1: layer III
	bitrateIdx := b[2] >> 4
	rateIdx := (b[2] >> 2) & 3
	padding := int(b[2]>>1) & 1
	if version == 1 || layer != 1 || bitrateIdx == 0 || bitrateIdx == 15 || rateIdx == 3 {
		return 0, 0, 0
	}
	v1 := []int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	v2 := []int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
	rates := [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	rate = rates[version][rateIdx]
	if version == 3 {
		return 144*v1[bitrateIdx]*1000/rate + padding, 1152, rate
	}
	return 72*v2[bitrateIdx]*1000/rate + padding, 576, rate
}
