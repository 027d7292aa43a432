package web

import "testing"

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/games/3": "/games/3", "/settings?done=email#tokens": "/settings?done=email#tokens", "/": "/",
		"": "/", "//evil.example/x": "/", "/\\evil.example": "/", "/\t/evil.example": "/", "/\n/evil.example": "/",
		"https://evil.example": "/", "javascript:alert(1)": "/", "games/3": "/", "http:/evil.example": "/",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}
