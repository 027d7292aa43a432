package notifier

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchMessage is a rendered "your turn" mail of realistic size.
func benchMessage(b *testing.B, i int64) Message {
	b.Helper()
	d := samples()[2].(YourTurn)
	subject, text, html, err := Render(d)
	if err != nil {
		b.Fatal(err)
	}
	inReplyTo, refs := ThreadHeaders("42", "dm.example")
	return Message{
		To: Address{"Ana", "ana@example.org"}, Subject: subject, Text: text, HTML: html,
		MessageID: DeliveryMessageID("42", fmt.Sprintf("ev-%d.u-1", i), "dm.example"),
		InReplyTo: inReplyTo, References: refs,
		UnsubscribeURL: "https://dm.example/v1/unsubscribe?token=abc",
	}
}

// BenchmarkSMTPSend measures emails per second accepted by a local go-smtp
// sink over TCP, with 1 and 8 concurrent senders, plain and with STARTTLS,
// reusing pooled connections (pool) or opening one per message (conn).
// The sink shares the machine's cores with the senders. Run:
//
//	go test ./notifier -run '^$' -bench SMTPSend -benchtime 2000x
func BenchmarkSMTPSend(b *testing.B) {
	for _, mode := range []TLSMode{TLSNone, TLSStartTLS} {
		for _, pool := range []bool{true, false} {
			for _, workers := range []int{1, 8} {
				name := fmt.Sprintf("%s/conn/workers=%d", mode, workers)
				if pool {
					name = fmt.Sprintf("%s/pool/workers=%d", mode, workers)
				}
				b.Run(name, func(b *testing.B) { benchSend(b, mode, pool, workers) })
			}
		}
	}
}

func benchSend(b *testing.B, mode TLSMode, pool bool, workers int) {
	s := startSink(b, sinkOptions{tlsMode: mode, discard: true})
	cfg := s.config()
	cfg.MaxIdleConns = workers
	if !pool {
		cfg.MaxIdleConns = -1
	}
	snd, err := NewSMTPSender(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer snd.Close()
	msg := benchMessage(b, 0)
	var next atomic.Int64
	ctx := context.Background()
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				m := msg
				m.MessageID = DeliveryMessageID("42", fmt.Sprintf("ev-%d.u-1", i), "dm.example")
				if err := snd.Send(ctx, m); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if got := s.accepted(); got != b.N {
		b.Fatalf("sink accepted %d of %d", got, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "emails/s")
}

// BenchmarkRender measures rendering a "your turn" mail (subject, text and
// HTML).
func BenchmarkRender(b *testing.B) {
	d := samples()[2]
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := Render(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSMTPLatency sends at a fixed 100 messages per second through 4
// workers sharing one pooled STARTTLS sender and reports the time from a
// message's scheduled moment to the sink's acceptance (p50, p99). This is
// the delivery half of commit-to-SMTP-accept; the outbox adds its polling
// or notification delay. Run:
//
//	go test ./notifier -run '^$' -bench SMTPLatency -benchtime 1000x
func BenchmarkSMTPLatency(b *testing.B) {
	s := startSink(b, sinkOptions{tlsMode: TLSStartTLS, discard: true})
	cfg := s.config()
	snd, err := NewSMTPSender(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer snd.Close()
	msg := benchMessage(b, 0)
	const rate = 100
	type job struct {
		i   int
		due time.Time
	}
	jobs := make(chan job, b.N)
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for j := range jobs {
				time.Sleep(time.Until(j.due))
				m := msg
				m.MessageID = DeliveryMessageID("42", fmt.Sprintf("lat-%d", j.i), "dm.example")
				if err := snd.Send(context.Background(), m); err != nil {
					b.Error(err)
				}
				lat[j.i] = time.Since(j.due)
			}
		})
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		jobs <- job{i, start.Add(time.Duration(i) * time.Second / rate)}
	}
	close(jobs)
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
	if got := s.accepted(); got != b.N {
		b.Fatalf("sink accepted %d of %d", got, b.N)
	}
}
