package wire

// Length is each command's encoded size in bytes, frame included (id u8 + size u16 + arguments):
// what Append appends. Callers that reserve room in a datagram ask the command, not a sum of
// constants (TestLengthIsAppended checks every command against its Append).

func (DelEnt) Length() int    { return CmdOverhead + DelEntArgs }
func (DelComp) Length() int   { return CmdOverhead + DelCompArgs }
func (Music) Length() int     { return CmdOverhead + MusicArgs }
func (GameEnd) Length() int   { return CmdOverhead + GameEndArgs }
func (Death) Length() int     { return CmdOverhead + DeathArgs }
func (Here) Length() int      { return CmdOverhead + HereArgs }
func (GetEnt) Length() int    { return CmdOverhead + GetEntArgs }
func (ActShoot) Length() int  { return CmdOverhead + ActShootArgs }
func (ActMove) Length() int   { return CmdOverhead + ActMoveArgs }
func (Ping) Length() int      { return CmdOverhead + PingArgs }
func (Rel) Length() int       { return CmdOverhead + RelArgs }
func (Welcome) Length() int   { return CmdOverhead + WelcomeArgs }
func (Bye) Length() int       { return CmdOverhead + ByeArgs }
func (Challenge) Length() int { return CmdOverhead + ChallengeArgs }
func (Response) Length() int  { return CmdOverhead + ResponseArgs }
func (Pause) Length() int     { return CmdOverhead + PauseArgs }

// Length is the INPUT command's size: its entries, at most MaxInputs of them.
func (c Input) Length() int { return CmdOverhead + 1 + InputEntryArgs*min(int(c.Count), MaxInputs) }

// Length is the RESULTS command's size: Count entries.
func (c Results) Length() int { return CmdOverhead + 1 + ResultsEntryArgs*int(c.Count) }
