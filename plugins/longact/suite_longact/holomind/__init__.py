"""HoloMind, LongAct's reference agent: two-layer planner, executor over a skill library, memory, critic."""
