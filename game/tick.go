package game

import "time"

// TickPeriod is the time one tick stands for, 1/TickRate s: the server's tick schedule, the
// clients' and bots' frames, and every duration counted in ticks. The simulation itself counts
// ticks and never reads a clock.
const TickPeriod = time.Second / TickRate
