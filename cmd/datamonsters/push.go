package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/datamonsters/turns/notifier"
)

// vapidKeyFile is where the VAPID private key is generated when the
// environment sets none.
const vapidKeyFile = "vapid.key"

// vapidSet reports whether the environment sets the VAPID keys (else they
// are kept in DATA_DIR).
func vapidSet(getenv func(string) string) bool {
	return strings.TrimSpace(getenv(notifier.EnvVAPIDPrivateKey)) != ""
}

// loadPushConfig reads the VAPID identity that signs the pushes to the
// players' browsers: VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (base64url,
// both or neither; with neither, the private key is generated once into
// dataDir/vapid.key, mode 0600, and the public key derived from it) and
// VAPID_SUBJECT (default mailto: and the address of SMTP_FROM, from).
// Browsers subscribe with the public key: a new key pair orphans every
// subscription made with the old one.
func loadPushConfig(getenv func(string) string, dataDir, from string) (notifier.PushConfig, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := notifier.PushConfig{PublicKey: get(notifier.EnvVAPIDPublicKey), PrivateKey: get(notifier.EnvVAPIDPrivateKey),
		Subject: get(notifier.EnvVAPIDSubject)}
	if c.Subject == "" {
		c.Subject = "mailto:" + from
	}
	switch {
	case c.PrivateKey == "" && c.PublicKey == "":
		path := filepath.Join(dataDir, vapidKeyFile)
		k, err := persisted(path, notifier.NewVAPIDKey, func(s string) error {
			_, err := notifier.VAPIDPublicKey(s)
			return err
		})
		if err != nil {
			return c, fmt.Errorf("VAPID key: %w", err)
		}
		c.PrivateKey = k
		if c.PublicKey, err = notifier.VAPIDPublicKey(k); err != nil {
			return c, err
		}
	case c.PrivateKey == "" || c.PublicKey == "":
		return c, errors.New("VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: set both, or neither to have them generated into DATA_DIR")
	}
	return c, c.Check()
}
