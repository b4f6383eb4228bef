// OnairPlanner
