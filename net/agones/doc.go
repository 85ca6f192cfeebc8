// Package agones integrates rtype game hosts with Agones (https://agones.dev) through its
// published HTTP APIs, with net/http and encoding/json (the Agones Go module is not a
// dependency). Every path and field name comes from the API documents of the repository
// googleforgames/agones (read at commit b19d5fe780b0, March 2026):
//
//   - sdks/swagger/sdk.swagger.json: the game server SDK sidecar's REST API on
//     localhost:$AGONES_SDK_HTTP_PORT — POST /ready, /health, /allocate, /shutdown,
//     GET /gameserver (object_meta, status.state, status.address, status.ports[].name/port,
//     status.counters), PUT /metadata/label {key, value};
//   - sdks/swagger/beta.swagger.json: counters, GET and PATCH /v1beta1/counters/{name}
//     (count, capacity, countDiff; int64 as JSON strings);
//   - pkg/allocation/go/allocation.swagger.json: the allocator service,
//     POST /gameserverallocation over mTLS (namespace, gameServerSelectors with matchLabels,
//     gameServerState READY/ALLOCATED and counters minAvailable; counters actions
//     Increment/amount; the answer's gameServerName, address, ports).
//
// SDK is the sidecar client (every call retries with a backoff: the sidecar may start after
// the game server); Allocator the allocator client; FakeSDK and FakeAllocator are
// http.Handlers written from the same documents for tests (they answer as Agones does: state
// Ready → Allocated, counters bounded by their capacity, 4xx on bad requests, and they record
// every call).
package agones
