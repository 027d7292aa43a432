package main

import (
	"net/mail"
	"strings"
	"testing"

	"github.com/datamonsters/turns/notifier"
)

func TestLoadInboundConfig(t *testing.T) {
	email := notifier.EmailConfig{From: mail.Address{Address: "turns@dm.example"}}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	c, err := loadInboundConfig(env(), email)
	if err != nil || c.enabled() || c.Domain != "dm.example" || c.MaxBytes != 1<<20 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = loadInboundConfig(env("INBOUND_SMTP_ADDR", ":2525", "REPLY_DOMAIN", "Reply.Example.org", "INBOUND_MAX_BYTES", "65536"), email)
	if err != nil || !c.enabled() || c.Domain != "reply.example.org" || c.MaxBytes != 65536 {
		t.Fatalf("set: %+v %v", c, err)
	}
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"INBOUND_TLS_CERT", "c.pem"}, "INBOUND_TLS_CERT and INBOUND_TLS_KEY"},
		{[]string{"INBOUND_SECRET", "short"}, "INBOUND_SECRET"},
		{[]string{"INBOUND_MAX_BYTES", "ten"}, "INBOUND_MAX_BYTES"},
	} {
		if _, err := loadInboundConfig(env(tc.kv...), email); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v", tc.kv, err)
		}
	}
}
