-- The SQLite workload of the fidelity tests: a small order book. Schema with foreign keys,
-- indexes and a view; bulk inserts through recursive CTEs; triggers that keep a stock table and
-- an audit log; joins, aggregates, window functions, subqueries, string functions, updates and
-- deletes; an integrity check at the end. It is run by the sqlite3 shell (`sqlite3 DB < this`)
-- and, in pieces, by sqlite_misuse.c.
PRAGMA foreign_keys = ON;

CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, since INTEGER);
CREATE TABLE product(id INTEGER PRIMARY KEY, title TEXT UNIQUE, price REAL CHECK (price > 0),
                     category TEXT);
CREATE TABLE stock(product_id INTEGER PRIMARY KEY REFERENCES product(id), qty INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id),
                    day INTEGER, status TEXT DEFAULT 'open');
CREATE TABLE line(order_id INTEGER REFERENCES orders(id) ON DELETE CASCADE,
                  product_id INTEGER REFERENCES product(id), qty INTEGER, price REAL);
CREATE TABLE audit(at INTEGER, what TEXT);
CREATE INDEX line_order ON line(order_id);
CREATE INDEX line_product ON line(product_id);
CREATE INDEX orders_customer ON orders(customer_id, day);

CREATE TRIGGER line_stock AFTER INSERT ON line BEGIN
  UPDATE stock SET qty = qty - NEW.qty WHERE product_id = NEW.product_id;
  INSERT INTO audit VALUES (NEW.order_id, 'sold ' || NEW.qty || ' of ' || NEW.product_id);
END;
CREATE TRIGGER stock_low AFTER UPDATE OF qty ON stock WHEN NEW.qty < 20 BEGIN
  UPDATE stock SET qty = qty + 500 WHERE product_id = NEW.product_id;
  INSERT INTO audit VALUES (-1, 'restocked ' || NEW.product_id);
END;
CREATE TRIGGER order_closed AFTER UPDATE OF status ON orders WHEN NEW.status = 'closed' BEGIN
  INSERT INTO audit VALUES (NEW.id, 'closed by ' || (SELECT name FROM customer
                                                       WHERE id = NEW.customer_id));
END;

CREATE VIEW order_total AS
  SELECT o.id, o.customer_id, o.day, sum(l.qty * l.price) AS total, count(*) AS lines
  FROM orders o JOIN line l ON l.order_id = o.id GROUP BY o.id;

BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
INSERT INTO customer SELECT i, 'customer-' || printf('%04d', i),
       CASE i % 7 WHEN 0 THEN 'Lyon' WHEN 1 THEN 'Oslo' WHEN 2 THEN 'Porto' WHEN 3 THEN 'Riga'
                  WHEN 4 THEN 'Graz' WHEN 5 THEN 'Turku' ELSE 'Ghent' END,
       2000 + i % 23 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
INSERT INTO product SELECT i, 'item ' || hex(i * 2654435761 % 65521) || '-' || i, round(1 + (i * 37 % 200) / 3.0, 2),
       CASE WHEN i % 5 = 0 THEN 'tools' WHEN i % 3 = 0 THEN 'food' ELSE 'books' END FROM n;
INSERT INTO stock SELECT id, 100 + id % 50 FROM product;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
INSERT INTO orders(id, customer_id, day) SELECT i, 1 + (i * 7919) % 300, i / 20 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
INSERT INTO line SELECT 1 + (i * 31) % 1500, 1 + (i * 17) % 120, 1 + i % 4,
       (SELECT price FROM product WHERE id = 1 + (i * 17) % 120) FROM n;
COMMIT;

UPDATE orders SET status = 'closed' WHERE day < 30 AND id % 3 = 0;

SELECT c.city, count(DISTINCT o.id) AS orders, round(sum(t.total), 2) AS revenue
FROM customer c JOIN orders o ON o.customer_id = c.id JOIN order_total t ON t.id = o.id
GROUP BY c.city ORDER BY revenue DESC;

SELECT p.category, p.title, sum(l.qty) AS sold,
       rank() OVER (PARTITION BY p.category ORDER BY sum(l.qty) DESC) AS r
FROM product p JOIN line l ON l.product_id = p.id
GROUP BY p.id HAVING sold > 30 ORDER BY p.category, r LIMIT 20;

SELECT name, (SELECT max(total) FROM order_total t WHERE t.customer_id = c.id) AS best
FROM customer c WHERE city IN ('Oslo', 'Riga') AND since > 2010 ORDER BY best DESC LIMIT 10;

SELECT day, total, avg(total) OVER (ORDER BY day ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)
FROM (SELECT day, sum(total) AS total FROM order_total GROUP BY day) LIMIT 25;

SELECT upper(substr(name, 1, 3)) || '-' || length(name), replace(city, 'o', '0'),
       instr(name, '1'), trim('  ' || city || '  ')
FROM customer WHERE id % 37 = 1;

DELETE FROM orders WHERE status = 'open' AND day > 70;
SELECT count(*), (SELECT count(*) FROM line), (SELECT count(*) FROM audit) FROM orders;

CREATE TEMP TABLE best AS
  SELECT customer_id, sum(total) AS spent FROM order_total GROUP BY customer_id
  ORDER BY spent DESC LIMIT 30;
SELECT c.name, b.spent, group_concat(DISTINCT p.category)
FROM best b JOIN customer c ON c.id = b.customer_id
JOIN orders o ON o.customer_id = c.id JOIN line l ON l.order_id = o.id
JOIN product p ON p.id = l.product_id GROUP BY c.id ORDER BY b.spent DESC;

SELECT p.title, s.qty FROM product p LEFT JOIN stock s ON s.product_id = p.id
WHERE p.id NOT IN (SELECT product_id FROM line WHERE qty > 3) ORDER BY s.qty LIMIT 10;

SELECT what, count(*) FROM audit GROUP BY substr(what, 1, 4) ORDER BY 2 DESC;
PRAGMA integrity_check;
