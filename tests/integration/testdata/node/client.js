// Requests each URL of argv[3...] with the API argv[2] names, as an application
// run with NODE_USE_ENV_PROXY=1 would: "http" is http.request (the http module's
// own proxy support), "fetch" the built-in fetch (undici's EnvHttpProxyAgent).
// Prints each body, or "error". No module of its own: it runs on the node
// binary of each LTS line that package-lock.json pins.
'use strict'

const http = require('node:http')

function viaHTTP (url) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { timeout: 5000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve(body))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end()
  })
}

async function viaFetch (url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  return response.text()
}

async function main () {
  const get = { http: viaHTTP, fetch: viaFetch }[process.argv[2]]
  if (!get) throw new Error(`unknown API ${process.argv[2]}: http or fetch`)
  for (const url of process.argv.slice(3)) {
    try {
      process.stdout.write(await get(url))
    } catch (err) {
      console.log('error')
      console.error(url, err.cause || err)
    }
  }
}

main().then(() => process.exit(0))
