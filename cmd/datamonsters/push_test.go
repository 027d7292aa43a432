package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/datamonsters/turns/notifier"
)

// TestVAPIDKeys: with no VAPID keys in the environment, a key pair is
// generated once into DATA_DIR/vapid.key (mode 0600) and kept across
// starts; keys set in the environment are used as they are and nothing is
// written; a public key that is not the private key's, one key without the
// other, or a subject that is no mailto: or https: URI stops the start.
func TestVAPIDKeys(t *testing.T) {
	dir := t.TempDir()
	cfg, err := loadConfig(env(map[string]string{"DATA_DIR": dir, "SMTP_FROM": "Turns <turns@dm.example>"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Push.Check(); err != nil || cfg.Push.Subject != "mailto:turns@dm.example" {
		t.Fatalf("generated %+v: %v", cfg.Push, err)
	}
	st, err := os.Stat(filepath.Join(dir, "vapid.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	again, err := loadConfig(env(map[string]string{"DATA_DIR": dir}))
	if err != nil || again.Push.PublicKey != cfg.Push.PublicKey || again.Push.PrivateKey != cfg.Push.PrivateKey {
		t.Fatalf("the key pair is not kept across starts: %v", err)
	}

	priv, err := notifier.NewVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := notifier.VAPIDPublicKey(priv)
	set := t.TempDir()
	cfg, err = loadConfig(env(map[string]string{"DATA_DIR": set, "VAPID_PUBLIC_KEY": pub, "VAPID_PRIVATE_KEY": priv,
		"VAPID_SUBJECT": "https://dm.example/contact"}))
	if err != nil || cfg.Push.PublicKey != pub || cfg.Push.PrivateKey != priv || cfg.Push.Subject != "https://dm.example/contact" {
		t.Fatalf("%+v: %v", cfg.Push, err)
	}
	if _, err := os.Stat(filepath.Join(set, "vapid.key")); !os.IsNotExist(err) {
		t.Fatal("key file written although the keys were set")
	}

	for _, bad := range []map[string]string{
		{"VAPID_PUBLIC_KEY": pub},
		{"VAPID_PRIVATE_KEY": priv},
		{"VAPID_PUBLIC_KEY": again.Push.PublicKey, "VAPID_PRIVATE_KEY": priv},
		{"VAPID_PUBLIC_KEY": pub, "VAPID_PRIVATE_KEY": "not-a-key"},
		{"VAPID_SUBJECT": "ops@dm.example"},
		{"VAPID_SUBJECT": "http://dm.example"},
	} {
		bad["DATA_DIR"] = t.TempDir()
		if _, err := loadConfig(env(bad)); err == nil || !strings.Contains(err.Error(), "VAPID") {
			t.Errorf("%v: %v, want an error naming VAPID", bad, err)
		}
	}
}
