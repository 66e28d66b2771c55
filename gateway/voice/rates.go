package voice

// Rates accepted for input audio (STT, engine output).
const (
	minInputRate = 4000
	maxInputRate = 192000
)
