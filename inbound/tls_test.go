package inbound_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log/slog"
	"math/big"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
)

// TestInboundSTARTTLS: with a certificate the inbound SMTP server offers
// STARTTLS, and a reply sent over it is played.
func TestInboundSTARTTLS(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ss := inbound.NewSMTPServer(e.in, inbound.SMTPConfig{Domain: domain, Logger: slog.New(slog.DiscardHandler),
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	go ss.Serve(ln)
	defer ss.Close()

	c, err := smtp.Dial(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Fatal("no STARTTLS offered")
	}
	pool := x509.NewCertPool()
	leaf, _ := x509.ParseCertificate(der)
	pool.AddCert(leaf)
	if err := c.StartTLS(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	before := e.version(id)
	if err := sendOn(c, u.Email, em.ReplyTo, replyTo(u, em, "end").raw()); err != nil {
		t.Fatal(err)
	}
	if v := e.version(id); v != before+1 {
		t.Fatalf("version %d -> %d", before, v)
	}
	e.settle()
	if ms := e.sink.to(u.Email); !strings.Contains(ms[len(ms)-1].Text, "Your moves were played.") {
		t.Fatalf("answer %q", ms[len(ms)-1].Text)
	}
}
