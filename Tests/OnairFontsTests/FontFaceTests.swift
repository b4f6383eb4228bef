import Foundation
import OnairFonts
import Testing

@Suite struct FontFaceTests {
    @Test func emptyOrForeignDataIsNotAFont() {
        #expect(throws: FontError.notAFont) { try FontFace(data: Data()) }
        #expect(throws: FontError.notAFont) { try FontFace(data: Data("<svg></svg> and more text".utf8)) }
    }
}
