package voices

import "strings"

// samples are the preview sentences, by ISO 639-1 code.
var samples = map[string]string{
	"en":  "Hello, this is a short sample of my voice.",
	"de":  "Hallo, das ist eine kurze Probe meiner Stimme.",
	"fr":  "Bonjour, voici un court extrait de ma voix.",
	"es":  "Hola, esta es una breve muestra de mi voz.",
	"it":  "Ciao, questo è un breve esempio della mia voce.",
	"pt":  "Olá, esta é uma pequena amostra da minha voz.",
	"nl":  "Hallo, dit is een kort voorbeeld van mijn stem.",
	"sv":  "Hej, det här är ett kort prov på min röst.",
	"da":  "Hej, dette er en kort prøve på min stemme.",
	"nb":  "Hei, dette er en kort prøve av stemmen min.",
	"no":  "Hei, dette er en kort prøve av stemmen min.",
	"fi":  "Hei, tämä on lyhyt näyte äänestäni.",
	"pl":  "Cześć, to jest krótka próbka mojego głosu.",
	"cs":  "Ahoj, toto je krátká ukázka mého hlasu.",
	"ru":  "Привет, это короткий образец моего голоса.",
	"uk":  "Привіт, це короткий зразок мого голосу.",
	"el":  "Γεια σας, αυτό είναι ένα σύντομο δείγμα της φωνής μου.",
	"tr":  "Merhaba, bu sesimin kısa bir örneği.",
	"hu":  "Szia, ez egy rövid minta a hangomból.",
	"ro":  "Bună, aceasta este o scurtă mostră a vocii mele.",
	"zh":  "你好，这是我声音的简短示例。",
	"cmn": "你好，这是我声音的简短示例。",
	"yue": "你好，呢個係我把聲嘅簡短示範。",
	"ja":  "こんにちは、これは私の声の短いサンプルです。",
	"ko":  "안녕하세요, 제 목소리의 짧은 샘플입니다.",
	"hi":  "नमस्ते, यह मेरी आवाज़ का एक छोटा नमूना है।",
	"ar":  "مرحبا، هذه عينة قصيرة من صوتي.",
	"he":  "שלום, זוהי דוגמה קצרה של הקול שלי.",
	"id":  "Halo, ini adalah contoh singkat suara saya.",
	"vi":  "Xin chào, đây là một mẫu ngắn giọng nói của tôi.",
}

// languageNames map English language names, as some voice lists spell
// them, to their codes.
var languageNames = map[string]string{
	"english": "en", "german": "de", "french": "fr", "spanish": "es",
	"italian": "it", "portuguese": "pt", "dutch": "nl", "swedish": "sv",
	"danish": "da", "norwegian": "nb", "finnish": "fi", "polish": "pl",
	"czech": "cs", "russian": "ru", "ukrainian": "uk", "greek": "el",
	"turkish": "tr", "hungarian": "hu", "romanian": "ro", "chinese": "zh",
	"mandarin": "zh", "cantonese": "yue", "japanese": "ja", "korean": "ko",
	"hindi": "hi", "arabic": "ar", "hebrew": "he", "indonesian": "id",
	"vietnamese": "vi",
}

// languageCode reduces a voice's language ("en-US", "en_gb", "English
// (America)", "zh") to the code used for samples and for STT's language.
func languageCode(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	if l == "" {
		return ""
	}
	for name, code := range languageNames {
		if strings.HasPrefix(l, name) {
			return code
		}
	}
	if i := strings.IndexAny(l, "-_ ("); i > 0 {
		l = l[:i]
	}
	return l
}

// sampleSentence is the preview sentence for a language, English when hark
// has none for it.
func sampleSentence(lang string) string {
	if s, ok := samples[languageCode(lang)]; ok {
		return s
	}
	return samples["en"]
}
