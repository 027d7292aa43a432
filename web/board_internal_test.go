package web

import "testing"

// TestMoveFormEscapes: a move's texts and values, whatever they hold, come
// out of moveForm as text and attribute values, never as markup.
func TestMoveFormEscapes(t *testing.T) {
	evil := `"><script>alert(1)</script><b x='`
	got := string(moveForm(7, 12, ` data-kind="x"`, []string{"key", evil, "card", "a&b"}, evil, true))
	want := `<li><form method="post" action="/games/7/play" data-kind="x"><input type="hidden" name="v" value="12">` +
		`<input type="hidden" name="key" value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;b x=&#39;">` +
		`<input type="hidden" name="card" value="a&amp;b">` + "\n" +
		`<button type="submit" class="secondary">&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;b x=&#39;</button></form></li>`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
