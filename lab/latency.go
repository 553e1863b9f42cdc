package lab

import (
	"io"
	"net"
	"sync"
	"time"
)

// Delay is a TCP proxy on loopback that forwards to a target address and holds every
// chunk of data, in each direction, for a fixed one-way latency: a slow network between
// a client and a lab agent, so benchmarks can show what parallel work saves where round
// trips, not CPU, dominate.
type Delay struct {
	// Addr is the proxy's host:port; dial it instead of the target.
	Addr string

	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewDelay starts a proxy to target adding oneWay latency in each direction.
func NewDelay(target string, oneWay time.Duration) (*Delay, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &Delay{Addr: l.Addr().String(), l: l, conns: map[net.Conn]struct{}{}}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				_ = c.Close()
				continue
			}
			if !d.track(c, up) {
				return
			}
			d.wg.Add(2)
			go d.pipe(up, c, oneWay)
			go d.pipe(c, up, oneWay)
		}
	}()
	return d, nil
}

func (d *Delay) track(cs ...net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		d.conns[c] = struct{}{}
	}
	return true
}

// pipe copies src to dst, each chunk delivered oneWay after it was read (chunks keep
// their order; reading goes on while earlier chunks wait).
func (d *Delay) pipe(dst, src net.Conn, oneWay time.Duration) {
	defer d.wg.Done()
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

// Close stops the proxy, closes every connection through it and waits.
func (d *Delay) Close() error {
	err := d.l.Close()
	d.mu.Lock()
	for c := range d.conns {
		_ = c.Close()
	}
	d.conns = nil
	d.mu.Unlock()
	d.wg.Wait()
	return err
}
