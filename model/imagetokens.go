package model

import (
	"bytes"
	"image"
	_ "image/gif" // DecodeConfig reads the sizes of the image types sheets send
	_ "image/jpeg"
	_ "image/png"
	"math"
	"strings"
)

// ImageTokens is what img costs in input tokens on the model info
// describes, by its provider's published rule. Anthropic: the image is
// scaled to a long edge of at most 1568 pixels, then width*height/750
// tokens, at most about 1600. OpenAI (and the servers that speak its API,
// whose own rules vary: an estimate there) at high detail: the image is
// scaled to fit 2048x2048, then its short side to at most 768, and costs
// 85 tokens plus 170 per 512-pixel tile (gpt-4o-mini: 2833 plus 5667). An
// image whose size cannot be read costs the most the rule allows.
func ImageTokens(info Info, img Image) int {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	w, h := cfg.Width, cfg.Height
	if info.Provider == "anthropic" {
		if err != nil || w <= 0 || h <= 0 {
			return anthropicMaxImageTokens
		}
		return anthropicImageTokens(w, h)
	}
	base, tile := 85, 170
	if strings.HasPrefix(info.Model, "gpt-4o-mini") {
		base, tile = 2833, 5667
	}
	if err != nil || w <= 0 || h <= 0 {
		w, h = 768, 2048 // the most tiles a high-detail image is cut into
	}
	return base + tile*openAITiles(w, h)
}

// anthropicMaxImageTokens is the most one image costs on Anthropic's
// models: larger ones are scaled down to about 1.15 megapixels.
const anthropicMaxImageTokens = 1600

func anthropicImageTokens(w, h int) int {
	if long := max(w, h); long > 1568 {
		s := 1568 / float64(long)
		w, h = int(float64(w)*s), int(float64(h)*s)
	}
	return min(int(math.Ceil(float64(w)*float64(h)/750)), anthropicMaxImageTokens)
}

// openAITiles is the number of 512-pixel tiles of a w x h image at high
// detail, once scaled as OpenAI scales it.
func openAITiles(w, h int) int {
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 2048 {
		fw, fh = fw*2048/long, fh*2048/long
	}
	if short := min(fw, fh); short > 768 {
		fw, fh = fw*768/short, fh*768/short
	}
	return int(math.Ceil(fw/512)) * int(math.Ceil(fh/512))
}
