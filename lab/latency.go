package lab

import (
	"io"
	"net"
	"time"
)

// Delay is a TCP proxy on loopback that forwards to a target address and holds every
// chunk of data, in each direction, for a fixed one-way latency: a slow network between
// a client and a lab agent, so benchmarks can show what parallel work saves where round
// trips, not CPU, dominate.
type Delay struct {
	// Addr is the proxy's host:port; dial it instead of the target.
	Addr string

	srv *tcpServer
}

// NewDelay starts a proxy to target adding oneWay latency in each direction.
func NewDelay(target string, oneWay time.Duration) (*Delay, error) {
	srv, err := listenTCP()
	if err != nil {
		return nil, err
	}
	srv.serve(func(c net.Conn) {
		up, err := net.DialTimeout("tcp", target, 5*time.Second)
		if err != nil || !srv.track(up) {
			return
		}
		defer srv.untrack(up)
		srv.spawn(func() { pipe(up, c, oneWay) })
		pipe(c, up, oneWay)
	})
	return &Delay{Addr: srv.addr(), srv: srv}, nil
}

// pipe copies src to dst, each chunk delivered oneWay after it was read (chunks keep
// their order; reading goes on while earlier chunks wait).
func pipe(dst, src net.Conn, oneWay time.Duration) {
	type chunk struct {
		data []byte
		due  time.Time
	}
	ch := make(chan chunk, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range ch {
			time.Sleep(time.Until(c.due))
			if _, err := dst.Write(c.data); err != nil {
				break
			}
		}
		_ = dst.Close()
		for range ch { // drain after a write failure
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			ch <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(oneWay)}
		}
		if err != nil {
			if err != io.EOF {
				_ = src.Close()
			}
			break
		}
	}
	close(ch)
	<-done
}

// Accepted is the number of client connections the proxy accepted so far: how many
// TCP connections a client opened to the target through it.
func (d *Delay) Accepted() int64 { return d.srv.accepted.Load() }

// Open is the number of client connections through the proxy not yet closed.
func (d *Delay) Open() int64 { return d.srv.serving.Load() }

// Close stops the proxy, closes every connection through it and waits.
func (d *Delay) Close() error { return d.srv.close() }
