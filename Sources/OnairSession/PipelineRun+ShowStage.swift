import OnairEngine
import OnairShow

/// A running pipeline is a stage the schedule acts on: its media clock and timed changes.
extension PipelineRun: ShowStage {}
