/// The fixed documents served by `/json`, `/html` and `/xml`.
enum SampleDocuments {
    /// A slideshow as JSON (`application/json`).
    static let json = """
        {
          "slideshow": {
            "author": "Yours Truly",
            "date": "date of publication",
            "slides": [
              {
                "title": "Wake up to WonderWidgets!",
                "type": "all"
              },
              {
                "items": [
                  "Why <em>WonderWidgets</em> are great",
                  "Who <em>buys</em> WonderWidgets"
                ],
                "title": "Overview",
                "type": "all"
              }
            ],
            "title": "Sample Slide Show"
          }
        }

        """

    /// A small HTML page (`text/html; charset=utf-8`) with some non-ASCII text.
    static let html = """
        <!DOCTYPE html>
        <html>
          <head>
            <meta charset="utf-8">
            <title>Courier test page</title>
          </head>
          <body>
            <h1>Herman Melville – Moby-Dick</h1>
            <p>Call me Ishmael. Some years ago — never mind how long precisely — having little or no money in my \
        purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the \
        watery part of the world.</p>
          </body>
        </html>

        """

    /// A slideshow as XML (`application/xml`).
    static let xml = """
        <?xml version='1.0' encoding='us-ascii'?>

        <!--  A SAMPLE set of slides  -->

        <slideshow
            title="Sample Slide Show"
            date="Date of publication"
            author="Yours Truly"
            >

            <!-- TITLE SLIDE -->
            <slide type="all">
              <title>Wake up to WonderWidgets!</title>
            </slide>

            <!-- OVERVIEW -->
            <slide type="all">
                <title>Overview</title>
                <item>Why <em>WonderWidgets</em> are great</item>
                <item/>
                <item>Who <em>buys</em> WonderWidgets</item>
            </slide>

        </slideshow>

        """
}
