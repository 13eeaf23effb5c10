package model

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// pngOf is a real w x h PNG.
func pngOf(t *testing.T, w, h int) Image {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return Image{MediaType: "image/png", Data: buf.Bytes()}
}

// The published rules' own examples: OpenAI's 1024x1024 (765 tokens),
// 2048x4096 (1105) and a small image (one tile, 255); Anthropic's
// 1092x1092 (about 1590) and 200x200 (about 54).
func TestImageTokens(t *testing.T) {
	gpt, mini, claude := Info{Provider: "openai", Model: "gpt-4o"}, Info{Provider: "openai", Model: "gpt-4o-mini"}, Info{Provider: "anthropic", Model: "claude-sonnet-4-5"}
	for _, tc := range []struct {
		info Info
		w, h int
		want int
	}{
		{gpt, 1024, 1024, 765},
		{gpt, 2048, 4096, 1105},
		{gpt, 40, 30, 255},
		{mini, 40, 30, 2833 + 5667},
		{claude, 1092, 1092, 1590},
		{claude, 200, 200, 54},
		{claude, 4000, 3000, 1600},
		{Info{Provider: "ollama", Model: "llava"}, 512, 512, 255},
	} {
		if got := ImageTokens(tc.info, pngOf(t, tc.w, tc.h)); got != tc.want {
			t.Errorf("%s/%s %dx%d: %d tokens, want %d", tc.info.Provider, tc.info.Model, tc.w, tc.h, got, tc.want)
		}
	}
	bad := Image{MediaType: "image/webp", Data: []byte("RIFF????WEBP")}
	if got := ImageTokens(gpt, bad); got != 85+170*8 {
		t.Errorf("an unreadable image on OpenAI: %d tokens, want the most, %d", got, 85+170*8)
	}
	if got := ImageTokens(claude, bad); got != 1600 {
		t.Errorf("an unreadable image on Anthropic: %d tokens, want 1600", got)
	}
}
