/// The frame the line charts share: the title, a plot area with both axes (ticks, tick labels,
/// gridlines, axis names) and a legend column at its right. Exists so that the thread-count
/// timeline and the sweep's log-log chart lay out their axes and legends the same way, and a
/// change to that layout reaches both.
struct PlotFrame {
    let plotLeft = 64.0
    let plotTop = 40.0
    let width: Double
    let plotWidth: Double
    let plotHeight: Double
    let xAxis: Axis
    let yAxis: Axis

    /// `legendWidth` is what is left to the right of the plot for the legend.
    init(width: Double = 820, legendWidth: Double, plotHeight: Double, xAxis: Axis, yAxis: Axis) {
        self.width = width
        self.plotWidth = width - plotLeft - legendWidth
        self.plotHeight = plotHeight
        self.xAxis = xAxis
        self.yAxis = yAxis
    }

    var height: Double { plotTop + plotHeight + 56 }

    /// Where a value falls on each axis, in canvas coordinates.
    func x(_ value: Double) -> Double { plotLeft + xAxis.fraction(value) * plotWidth }
    func y(_ value: Double) -> Double { plotTop + plotHeight - yAxis.fraction(value) * plotHeight }

    /// A canvas with the title and the axes drawn. Each y tick is a gridline across the plot;
    /// each x tick is a gridline too with `xGrid`, otherwise a short mark under the plot.
    func canvas(
        title: String, xLabel: String, yLabel: String, xGrid: Bool,
        xTickLabel: (Double) -> String, yTickLabel: (Double) -> String
    ) -> SVGCanvas {
        var svg = SVGCanvas(width: width, height: height, title: title)
        svg.text(plotLeft, 22, title, size: 15, bold: true)
        let bottom = plotTop + plotHeight
        for tick in yAxis.ticks {
            svg.line(plotLeft, y(tick), plotLeft + plotWidth, y(tick), stroke: Palette.grid)
            svg.text(plotLeft - 6, y(tick) + 4, yTickLabel(tick), anchor: .end, size: 11, fill: Palette.axis)
        }
        for tick in xAxis.ticks {
            svg.line(
                x(tick), xGrid ? plotTop : bottom, x(tick), bottom + 4, stroke: xGrid ? Palette.grid : Palette.axis)
            svg.text(x(tick), bottom + 17, xTickLabel(tick), anchor: .middle, size: 11, fill: Palette.axis)
        }
        svg.line(plotLeft, bottom, plotLeft + plotWidth, bottom, stroke: Palette.axis)
        svg.line(plotLeft, plotTop, plotLeft, bottom, stroke: Palette.axis)
        svg.text(plotLeft + plotWidth / 2, bottom + 36, xLabel, anchor: .middle, size: 12, fill: Palette.axis)
        svg.text(18, plotTop + plotHeight / 2, yLabel, anchor: .middle, size: 12, fill: Palette.axis, rotate: -90)
        return svg
    }

    /// The `index`th legend row from the top: a swatch in `colour`, then `text`.
    func legend(_ svg: inout SVGCanvas, index: Int, colour: String, text: String) {
        let rowY = plotTop + 8 + Double(index) * 20
        svg.rect(plotLeft + plotWidth + 16, rowY - 9, 14, 4, fill: colour)
        svg.text(plotLeft + plotWidth + 36, rowY - 3, text, size: 11)
    }
}
