package distributed

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/spotbot/spotbot/marketdata"
)

// The JetStream names spotbot uses; docs/distributed.md lists them for
// operators (permissions, purging a job).
const (
	// Stream holds the work units, a work-queue stream: a unit leaves it
	// when a worker acknowledges it.
	Stream = "SPOTBOT_UNITS"
	// subjects of units are UnitsSubject.<job>.<stage>.<unit>.
	UnitsSubject = "spotbot.units"
	// Consumer is the one durable pull consumer every worker shares.
	Consumer = "spotbot-workers"
	// JobsBucket is the key-value bucket of job descriptions, by job id.
	JobsBucket = "spotbot-jobs"
	// ResultsBucket is the key-value bucket of unit results:
	// <job>.r.<stage>.<unit>, and <job>.e.<stage>.<unit> for a unit a
	// worker could not run.
	ResultsBucket = "spotbot-results"
	// BarsBucket is the object store of bars, named by BarsHash.
	BarsBucket = "spotbot-bars"
	// RunsBucket is the object store of walk-forward windows' runs,
	// <job>.w.<stage>: equity curves outgrow a key-value entry.
	RunsBucket = "spotbot-runs"
)

// DefaultAckWait is how long a unit may go without a sign of life from
// its worker before JetStream hands it to another worker; workers send
// in-progress acknowledgements every third of it.
const DefaultAckWait = 30 * time.Second

// ConnOptions are how to reach and authenticate to a NATS server. URL is
// nats://host:4222 (or several, comma-separated); tls://host:4222 asks for
// TLS; user:password@ in the URL authenticates too.
type ConnOptions struct {
	URL string
	// Creds is a credentials file (a user JWT and its nkey seed), as
	// nsc and the NATS account tools write them.
	Creds string
	// NKey is a file holding a user nkey seed (SU...).
	NKey string
	// CA, Cert and Key are PEM files: a CA to verify the server with,
	// and a client certificate and key for mutual TLS.
	CA, Cert, Key string
	// Name names the connection in the server's monitoring.
	Name string
	// AckWait is the consumer's acknowledgement wait when this
	// connection creates the consumer (default DefaultAckWait); an
	// existing consumer keeps its own.
	AckWait time.Duration
}

// Queue is a connection to the JetStream resources of distributed sweeps.
type Queue struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	stream  jetstream.Stream
	cons    jetstream.Consumer
	jobs    jetstream.KeyValue
	results jetstream.KeyValue
	bars    jetstream.ObjectStore
	runs    jetstream.ObjectStore
	ackWait time.Duration

	// OnProgress, when set, is called (one call at a time) as the
	// coordinator's stages are queued and as each unit's result is
	// merged, with the totals over every stage of this connection.
	OnProgress func(Progress)
	mu         sync.Mutex
	prog       Progress
}

// Connect connects to the server and creates the stream, consumer,
// buckets and object store when they do not exist yet.
func Connect(ctx context.Context, o ConnOptions) (*Queue, error) {
	if o.URL == "" {
		return nil, errors.New("queue: no server URL")
	}
	for _, u := range strings.Split(o.URL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" {
			return nil, fmt.Errorf("queue: %q is not a server URL (want nats://host:4222 or tls://host:4222)", u)
		}
		switch p.Scheme {
		case "nats", "tls":
		default:
			return nil, fmt.Errorf("queue: %q: scheme %q, want nats or tls", u, p.Scheme)
		}
	}
	if (o.Cert == "") != (o.Key == "") {
		return nil, errors.New("queue: a client certificate needs both its certificate and key files")
	}
	if o.Creds != "" && o.NKey != "" {
		return nil, errors.New("queue: give a credentials file or an nkey seed file, not both")
	}
	opts := []nats.Option{nats.Name(o.Name), nats.MaxReconnects(-1)}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.NKey != "" {
		opt, err := nats.NkeyOptionFromSeed(o.NKey)
		if err != nil {
			return nil, fmt.Errorf("queue: nkey seed file: %w", err)
		}
		opts = append(opts, opt)
	}
	if o.CA != "" {
		opts = append(opts, nats.RootCAs(o.CA))
	}
	if o.Cert != "" {
		opts = append(opts, nats.ClientCert(o.Cert, o.Key))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("queue: connect to %s: %w", Redact(o.URL), err)
	}
	q, err := setup(ctx, nc, o.AckWait)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return q, nil
}

// Redact drops the passwords from server URLs, for messages.
func Redact(raw string) string {
	var out []string
	for _, u := range strings.Split(raw, ",") {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil {
			u = p.Redacted()
		}
		out = append(out, u)
	}
	return strings.Join(out, ",")
}

func setup(ctx context.Context, nc *nats.Conn, ackWait time.Duration) (*Queue, error) {
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	q := &Queue{nc: nc, js: js}
	q.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: Stream, Subjects: []string{UnitsSubject + ".>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("queue: stream %s: %w (is JetStream enabled on the server?)", Stream, err)
	}
	q.cons, err = q.stream.Consumer(ctx, Consumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		q.cons, err = q.stream.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: Consumer, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: ackWait, MaxDeliver: -1, MaxAckPending: 10000, FilterSubject: UnitsSubject + ".>"})
		if errors.Is(err, jetstream.ErrConsumerExists) { // another process created it meanwhile
			q.cons, err = q.stream.Consumer(ctx, Consumer)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("queue: consumer %s: %w", Consumer, err)
	}
	q.ackWait = q.cons.CachedInfo().Config.AckWait
	if q.jobs, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: JobsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("queue: bucket %s: %w", JobsBucket, err)
	}
	if q.results, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: ResultsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("queue: bucket %s: %w", ResultsBucket, err)
	}
	if q.bars, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: BarsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("queue: object store %s: %w", BarsBucket, err)
	}
	if q.runs, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: RunsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("queue: object store %s: %w", RunsBucket, err)
	}
	return q, nil
}

// Close closes the connection; a worker's unacknowledged units go back
// to the queue when their acknowledgement wait runs out.
func (q *Queue) Close() { q.nc.Close() }

// AckWait is the consumer's acknowledgement wait.
func (q *Queue) AckWait() time.Duration { return q.ackWait }

// PutBars stores bars under their hash (BarsHash) unless they are there
// already, and returns the hash.
func (q *Queue) PutBars(ctx context.Context, data map[string]*marketdata.Series) (string, error) {
	h := BarsHash(data)
	if _, err := q.bars.GetInfo(ctx, h); err == nil {
		return h, nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", fmt.Errorf("queue: bars %s: %w", h, err)
	}
	encoded, err := EncodeBars(data)
	if err != nil {
		return "", err
	}
	if _, err := q.bars.PutBytes(ctx, h, encoded); err != nil {
		return "", fmt.Errorf("queue: store bars %s: %w", h, err)
	}
	return h, nil
}

// getBars fetches bars by hash and checks the content against the name.
func (q *Queue) getBars(ctx context.Context, hash string) (map[string]*marketdata.Series, error) {
	b, err := q.bars.GetBytes(ctx, hash)
	if err != nil {
		return nil, fmt.Errorf("bars %s: %w", hash, err)
	}
	data, err := DecodeBars(b)
	if err != nil {
		return nil, fmt.Errorf("bars %s: %w", hash, err)
	}
	if got := BarsHash(data); got != hash {
		return nil, fmt.Errorf("bars %s: the stored object hashes to %s", hash, got)
	}
	return data, nil
}
