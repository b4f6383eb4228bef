import Foundation
import OnairExport
import OnairPlanner
import Testing

/// The pieces the exports are made of.
@Suite struct ExportValueTests {
    @Test func yamlQuotesWhatAReaderWouldTakeForSomethingElse() {
        let text = YAMLValue.stream([["scrape": "true", "port": "8750", "on": "on", "empty": "", "path": "/metrics",
                                      "count": 3, "flag": false, "text": "line one\nline two\n"]])
        #expect(text == """
            ---
            scrape: "true"
            port: "8750"
            "on": "on"
            empty: ""
            path: /metrics
            count: 3
            flag: false
            text: |
              line one
              line two

            """)
    }

    @Test func theGracePeriodOutlastsTheDrain() {
        let budget = DrainBudget.standard
        #expect(budget.drainSeconds == budget.stopSeconds + budget.flushSeconds)
        #expect(budget.gracePeriodSeconds > budget.drainSeconds)
        #expect(budget.stopSeconds == 1, "the engine's stop bound (issue 7): within 1 s of the request")
        #expect(budget.delivering(to: []) == budget && budget.gracePeriodSeconds == 30, "without notify: targets, as before")
    }
}
