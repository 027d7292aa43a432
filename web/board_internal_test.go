package web

import "testing"

// TestMoveFormEscapes: a move's texts and values, whatever they hold, come
// out of moveForm as text and attribute values, never as markup.
func TestMoveFormEscapes(t *testing.T) {
	evil := `"><script>alert(1)</script><b x='`
	got := string(moveForm(7, 12, ` data-kind="x"`, []string{"key", evil, "card", "a&b"}, evil, true, "", nil, "", false))
	want := `<li><form method="post" action="/games/7/play" data-kind="x"><input type="hidden" name="v" value="12">` +
		`<input type="hidden" name="key" value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;b x=&#39;">` +
		`<input type="hidden" name="card" value="a&amp;b">` + "\n" +
		`<button type="submit" class="secondary">&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;b x=&#39;</button></form></li>`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestMoveFormWarns: a move's rules and warning are escaped text beside
// its button, which they describe, and a warned form asks first.
func TestMoveFormWarns(t *testing.T) {
	evil := `"><script>alert(1)</script>`
	got := string(moveForm(7, 12, "", []string{"key", "k"}, "Abandon", true, "mv-1", []string{evil, "Line two."}, evil, false))
	want := `<li><form method="post" action="/games/7/play" data-confirm="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">` +
		`<input type="hidden" name="v" value="12"><input type="hidden" name="key" value="k">` + "\n" +
		`<button type="submit" class="warned" aria-describedby="mv-1-r mv-1-w">Abandon</button></form>` + "\n" +
		`<p class="move-rules" id="mv-1-r">&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt; Line two.</p>` + "\n" +
		`<p class="move-warn" id="mv-1-w">&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p></li>`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
