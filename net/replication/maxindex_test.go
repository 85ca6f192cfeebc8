package replication_test

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/replication"
)

// The server side of the client's entity index limit (docs/PROTOCOL.md §6 rule 9): whole games
// of every embedded stage with four players, the busiest case, never use an entity index a
// client's mirror would refuse (the ECS reuses the indices of destroyed entities).
func TestGamesStayUnderClientIndexLimit(t *testing.T) {
	for _, name := range stagefile.EmbeddedNames() {
		st, err := game.LoadStage(name)
		if err != nil {
			t.Fatal(err)
		}
		s := game.NewSim(game.Config{Seed: 9, Players: 4, Stage: st, Difficulty: rules.DifficultyHard})
		maxIndex := uint32(0)
		for tick := 0; tick < 20*60*game.TickRate; tick++ {
			for slot := 0; slot < 4; slot++ {
				s.SetInput(slot, game.Autopilot(s.World(), s.Components(), &st.Terrain, s.PlayerEntity(slot), s.Tick()))
			}
			s.Step()
			s.World().Each(func(e ecs.Entity) { maxIndex = max(maxIndex, e.Index()) })
			s.World().ClearEvents()
			if over, _ := s.Over(); over {
				break
			}
		}
		if maxIndex > replication.MaxEntityIndex {
			t.Errorf("%s: entity index %d, above the clients' limit %d", name, maxIndex, replication.MaxEntityIndex)
		}
		t.Logf("%s: largest entity index %d (limit %d)", name, maxIndex, replication.MaxEntityIndex)
	}
}
