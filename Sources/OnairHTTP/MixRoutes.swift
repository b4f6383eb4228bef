import Foundation
import HTTPTypes
import Hummingbird
import OnairControl

/// `POST /api/v1/mixes/{mix}/gain` and `/mute`, `POST /api/v1/destinations/{name}/mute`: the
/// mixes' levels and a destination's sound changed on air, through the run's ``RunControl``.
struct MixRoutes: Sendable {
    let control: ControlHandle

    func add(to router: Router<BasicRequestContext>, json: JSONBodies) {
        router.post("/api/v1/mixes/{mix}/gain") { request, context in
            let mix = try context.parameters.require("mix")
            let ask = try await GainRequest.read(from: request)
            let run = try control.run()
            do throws(MixControlError) {
                return json.response(.ok, try await run.setGain(mix: mix, source: ask.source, gainDB: ask.gainDB))
            } catch {
                throw Self.httpError(error)
            }
        }
        router.post("/api/v1/mixes/{mix}/mute") { request, context in
            let mix = try context.parameters.require("mix")
            let ask = try await JSONRequestBody.decode(MixMuteRequest.self, from: request, example: #"{"source": "music", "muted": true}"#)
            let run = try control.run()
            do throws(MixControlError) {
                return json.response(.ok, try await run.setMuted(ask.muted ?? true, mix: mix, source: ask.source))
            } catch {
                throw Self.httpError(error)
            }
        }
        router.post("/api/v1/destinations/{name}/mute") { request, context in
            let destination = try context.parameters.require("name")
            let ask = try await DestinationMuteRequest.read(from: request)
            let run = try control.run()
            do throws(MixControlError) {
                return json.response(.ok, try await run.setAudioMuted(ask.muted ?? true, destination: destination))
            } catch {
                throw Self.httpError(error)
            }
        }
    }

    /// The answer to a refused change.
    static func httpError(_ error: MixControlError) -> HTTPError {
        switch error {
        case .unknownMix, .unknownMember, .unknownDestination: HTTPError(.notFound, message: error.description)
        case .outOfRange: HTTPError(.badRequest, message: error.description)
        case .refused: HTTPError(.conflict, message: error.description)
        }
    }
}

/// The body of `POST /api/v1/mixes/{mix}/gain`: a member and its new level.
struct GainRequest: Decodable, Equatable {
    /// The member (a source or a mix heard in the mix).
    var source: String
    /// Its level, dB, within the range a pipeline's `gain:` takes.
    var gainDB: Double

    private enum CodingKeys: String, CodingKey {
        case source, gainDB = "gain_db"
    }

    static func read(from request: Request) async throws -> GainRequest {
        let ask = try await JSONRequestBody.decode(GainRequest.self, from: request, example: #"{"source": "music", "gain_db": -6}"#)
        try check(ask)
        return ask
    }

    /// Refuses a level outside ``MixLevels/gainRange`` before it reaches the run.
    static func check(_ ask: GainRequest) throws {
        guard ask.gainDB.isFinite, MixLevels.gainRange.contains(ask.gainDB) else {
            throw HTTPError(.badRequest, message: MixControlError.outOfRange(gainDB: ask.gainDB).description)
        }
    }
}

/// The body of `POST /api/v1/mixes/{mix}/mute`: a member, muted (the default) or not.
struct MixMuteRequest: Decodable, Equatable {
    var source: String
    var muted: Bool?
}

/// The body of `POST /api/v1/destinations/{name}/mute`: its sound muted (the default) or not.
struct DestinationMuteRequest: Decodable, Equatable {
    /// Must be true (or absent): only a destination's sound is muted this way.
    var audio: Bool?
    var muted: Bool?

    static func read(from request: Request) async throws -> DestinationMuteRequest {
        let ask = try await JSONRequestBody.decode(DestinationMuteRequest.self, from: request, example: #"{"audio": true, "muted": true}"#)
        guard ask.audio ?? true else {
            throw HTTPError(.badRequest, message: "only a destination's sound can be muted: send audio: true (or leave it out)")
        }
        return ask
    }
}
