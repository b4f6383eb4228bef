/// A moment of a run's output: microseconds on the compositor's output timeline (its pictures'
/// and sound's timestamps), 0 at the run's first frame. Timed control calls take one (`at:`;
/// nil: the next frame) and say where they landed in one.
public typealias MediaInstant = Int64
