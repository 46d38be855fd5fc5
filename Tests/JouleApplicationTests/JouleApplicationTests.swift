import Testing
@testable import JouleApplication
