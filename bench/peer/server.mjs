// The peer for bench/peer_compare.py: @neo4j/graphql 7 (pinned in package-lock.json) over the
// nodes storygraph stores, served by @apollo/server on 127.0.0.1:$PEER_PORT.
// Neo4j from NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE.
import { readFileSync } from "node:fs";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { Neo4jGraphQL } from "@neo4j/graphql";
import { GraphQLScalarType, Kind } from "graphql";
import neo4j from "neo4j-driver";

const typeDefs = readFileSync(new URL("./typeDefs.graphql", import.meta.url), "utf8");

// A stored instant as ISO text, formatted here rather than with APOC in Cypher.
const Instant = new GraphQLScalarType({
  name: "Instant",
  serialize: (value) => (typeof value === "string" ? value : value.toString()),
  parseValue: (value) => value,
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? ast.value : null),
});

const driver = neo4j.driver(
  process.env.NEO4J_URI ?? "bolt://127.0.0.1:7688",
  neo4j.auth.basic(process.env.NEO4J_USER ?? "neo4j", process.env.NEO4J_PASSWORD ?? ""),
);
const database = process.env.NEO4J_DATABASE ?? "neo4j";
const neoSchema = new Neo4jGraphQL({ typeDefs, driver, resolvers: { Instant } });
const schema = await neoSchema.getSchema();
const server = new ApolloServer({ schema });
const port = Number(process.env.PEER_PORT ?? 4100);
const { url } = await startStandaloneServer(server, {
  listen: { port, host: "127.0.0.1" },
  context: async () => ({ sessionConfig: { database } }),
});
console.log(`peer ready at ${url}`);
